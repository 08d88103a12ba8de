package dev.slidegate.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import dev.slidegate.testing.Brackets;

/**
 * Calls that wait for their permits across a fleet (issue 38): the packaged service as 3 processes on one
 * redis-server, with the shipped defaults but for the demo warehouse's limit (5 per 500 ms, every caller together,
 * max-wait 1 s: two windows). 24 clients offer three times the limit, spread over the instances. The oracle is the
 * warehouse itself: each admitted answer says when the warehouse was asked ({@code askedAt}, the wall clock every
 * process on this machine shares), and each call is stamped on that clock when sent. By the warehouse's own instants,
 * no 500 ms holds more than 5 asks (issue 56: a permit of a waiting policy occupies its window for the shipped late
 * tolerance too, so calls that ran late within it never meet the next window's); every answer is a 200 or a plain 429
 * (never a 5xx, never refused after waiting: a 429 carries no wait), and once callers queue the warehouse is asked at
 * least 95% of N per window and tolerance.
 */
class WaitingInstancesIT {

    private static final int N = 5;
    /** What the {@link SharedFleet} starts with for this test: the warehouse at N per 500 ms. */
    static final List<String> SETTINGS = List.of("-Dslidegate.policies.warehouse.limits=" + N + "/500ms");
    private static final long W_MICROS = 500_000;
    private static final long TOLERANCE_MICROS = 50_000; // slidegate.wait.late-tolerance, shipped
    private static final Pattern ASKED = Pattern.compile("\"askedAt\":\"([^\"]+)\"");

    private record Call(long sent, long answered, int status, String body, ServiceProcess instance) {
    }

    @Test
    void theWarehouseIsPacedExactlyAcrossThreeInstances() throws Exception {
        try (SharedFleet fleet = SharedFleet.use(WaitingInstancesIT.class)) {
            List<ServiceProcess> instances = fleet.instances();
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            for (ServiceProcess s : instances) { // warm each instance's path once (answers within its max-wait)
                http.send(request(s, 1), HttpResponse.BodyHandlers.discarding());
            }
            TimeUnit.MILLISECONDS.sleep(1_100); // the warm-up's permits leave the window
            ConcurrentLinkedQueue<Call> calls = new ConcurrentLinkedQueue<>();
            long start = System.nanoTime();
            long stop = start + 5_000_000_000L; // 5 s: ten windows of W once the callers queue
            List<Thread> clients = new ArrayList<>();
            for (int t = 0; t < 24; t++) {
                int client = t;
                Thread th = new Thread(() -> {
                    Random random = new Random(client);
                    long next = start + random.nextInt(800_000_000);
                    int i = client;
                    while (next < stop) {
                        long left;
                        while ((left = next - System.nanoTime()) > 0) {
                            java.util.concurrent.locks.LockSupport.parkNanos(left);
                        }
                        ServiceProcess target = instances.get(i++ % 3);
                        long sent = micros(Instant.now());
                        try {
                            HttpResponse<String> r = http.send(request(target, 1 + random.nextInt(4)),
                                    HttpResponse.BodyHandlers.ofString());
                            calls.add(new Call(sent, micros(Instant.now()), r.statusCode(), r.body(), target));
                        } catch (Exception e) {
                            calls.add(new Call(sent, micros(Instant.now()), -1, e.toString(), target));
                        }
                        next += 800_000_000L; // 24 clients each every 0.8 s: 30 a second, three times the limit
                    }
                });
                th.start();
                clients.add(th);
            }
            for (Thread th : clients) {
                th.join();
            }
            Brackets asks = new Brackets();
            List<Long> asked = new ArrayList<>();
            long firstRefusal = Long.MAX_VALUE;
            int admitted = 0;
            for (Call call : calls) {
                assertTrue(call.status() == 200 || call.status() == 429, call.toString());
                if (call.status() == 429) {
                    assertTrue(call.body().contains("#quota-exceeded"), call.body());
                    firstRefusal = Math.min(firstRefusal, call.sent());
                    continue;
                }
                Matcher m = ASKED.matcher(call.body());
                assertTrue(m.find(), call.body());
                long at = micros(Instant.parse(m.group(1)));
                assertTrue(at >= call.sent() - 1_000 && at <= call.answered() + 1_000, "asked within its call: " + call);
                asks.add(at, at);
                asked.add(at);
                admitted++;
            }
            int most = asks.maxProvable(W_MICROS);
            long from = firstRefusal + W_MICROS;
            long to = micros(Instant.now()) - (System.nanoTime() - stop) / 1000 - W_MICROS;
            long used = asked.stream().filter(t -> t >= from && t < to).count();
            // the store admits N at a time, one burst per W + tolerance once callers queue: count whole periods, so that
            // where the span ends within a period does not decide the verdict (11.3 periods hold 11 bursts, not 11.3)
            double expected = 0.95 * N * Math.floor((double) (to - from) / (W_MICROS + TOLERANCE_MICROS));
            System.out.printf("three instances, waiting calls: %d calls, %d admitted, most asks within 500 ms: %d "
                    + "(N = %d); %d asks in %d ms once queued (95%% of N per window: %.1f)%n", calls.size(), admitted, most,
                    N, used, (to - from) / 1000, expected);
            assertTrue(most <= N, most + " asks of the warehouse lie within one window of 500 ms");
            assertTrue(firstRefusal < Long.MAX_VALUE, "three times the limit was offered: some calls were refused");
            assertTrue(used >= Math.floor(expected) - 1, "the warehouse was asked only " + used + " times once queued");
            for (ServiceProcess s : instances) {
                assertEquals(0, s.log().lines().filter(l -> l.contains("ERROR")).count(), s.log());
            }
        }
    }

    private static HttpRequest request(ServiceProcess target, int product) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + target.port + "/api/products/" + product + "/stock"))
                .timeout(Duration.ofSeconds(10)).GET().build();
    }

    private static long micros(Instant t) {
        return t.getEpochSecond() * 1_000_000 + t.getNano() / 1000;
    }
}
