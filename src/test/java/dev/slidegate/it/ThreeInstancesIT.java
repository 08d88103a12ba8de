package dev.slidegate.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.slidegate.testing.Brackets;

/**
 * Multi-instance exactness: the packaged service as 3 processes on one redis-server, with the shipped
 * defaults (the 50 ms budget, no fallback setting); 24 client threads
 * hammer for 10 s, two thirds of their calls on one hot API key and the rest on 200 others, spread
 * over the instances, on 2 cores shared with the three JVMs warming up. Every admitted call is
 * bracketed on the load generator's clock ({@link Brackets}): no key may have more than N admitted
 * calls provably inside one window (reports at 50/1s, sliding log), the hot key must still get at
 * least 80% of N per second, and every answer is a 200 or a 429.
 */
class ThreeInstancesIT {

    private static final int N = 50;
    /** What the {@link SharedFleet} starts with for this test: {@code reports} at N per second, sliding-log. */
    static final List<String> SETTINGS = List.of("-Dslidegate.policies.reports.limits=" + N + "/1s",
            "-Dslidegate.policies.reports.strategy=sliding-log");
    private static final long W_NANOS = 1_000_000_000L;
    private static final long SECONDS = Long.getLong("three.instances.seconds", 10);

    /** The admitted calls of one key: when each was sent and answered (nanoTime). */
    private static final class Admitted {
        final List<long[]> calls = new ArrayList<>();

        synchronized void add(long sent, long received) {
            calls.add(new long[] { sent, received });
        }
    }

    @Test
    void noKeyEverGetsMoreThanNInAnyWindow() throws Exception {
        try (SharedFleet fleet = SharedFleet.use(ThreeInstancesIT.class)) {
            List<ServiceProcess> instances = fleet.instances();
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            Map<String, Admitted> admitted = new ConcurrentHashMap<>();
            AtomicInteger errors = new AtomicInteger();
            AtomicInteger calls = new AtomicInteger();
            long end = System.nanoTime() + SECONDS * 1_000_000_000L;
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 24; t++) {
                int first = t;
                Thread th = new Thread(() -> {
                    int i = first;
                    while (System.nanoTime() < end) {
                        ThreadLocalRandom random = ThreadLocalRandom.current();
                        String key = random.nextInt(3) > 0 ? "hot" : "k" + random.nextInt(200);
                        ServiceProcess target = instances.get(i++ % 3);
                        HttpRequest request = HttpRequest
                                .newBuilder(URI.create("http://127.0.0.1:" + target.port + "/api/reports"))
                                .header("X-Api-Key", key).timeout(Duration.ofSeconds(10)).GET().build();
                        long sent = System.nanoTime();
                        try {
                            int status = http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
                            long received = System.nanoTime();
                            calls.incrementAndGet();
                            if (status == 200) {
                                admitted.computeIfAbsent(key, k -> new Admitted()).add(sent, received);
                            } else if (status != 429) {
                                errors.incrementAndGet();
                            }
                        } catch (Exception e) {
                            errors.incrementAndGet();
                        }
                    }
                });
                th.start();
                threads.add(th);
            }
            for (Thread th : threads) {
                th.join();
            }
            int worst = 0;
            String worstKey = "";
            for (Map.Entry<String, Admitted> e : admitted.entrySet()) {
                long[] sent = e.getValue().calls.stream().mapToLong(x -> x[0]).toArray();
                long[] received = e.getValue().calls.stream().mapToLong(x -> x[1]).toArray();
                int max = Brackets.maxProvable(sent, received, W_NANOS);
                if (max > worst) {
                    worst = max;
                    worstKey = e.getKey();
                }
            }
            int hot = admitted.getOrDefault("hot", new Admitted()).calls.size();
            System.out.printf("three instances, %d s: %d calls, %d errors, hot key admitted %d (%.1f per window), %d keys; "
                    + "most admitted provably within one window: %d (key %s), N = %d%n", SECONDS, calls.get(), errors.get(),
                    hot,
                    hot / (double) SECONDS, admitted.size(), worst, worstKey, N);
            for (ServiceProcess instance : instances) { // what each instance said about Redis while it decided
                instance.log().lines().filter(l -> l.contains("Redis") && (l.contains("WARN") || l.contains("answers again")))
                        .limit(12)
                        .forEach(l -> System.out.println("instance " + instance.port + ": " + l));
            }
            assertTrue(errors.get() == 0, errors.get() + " answers were neither 200 nor 429");
            assertTrue(worst <= N, worst + " admitted calls of key " + worstKey + " lie within one window of 1 s");
            assertTrue(hot >= 0.8 * N * SECONDS, "the hot key was admitted only " + hot + " times: over-cautious");
        }
    }
}
