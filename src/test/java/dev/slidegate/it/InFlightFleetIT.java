package dev.slidegate.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * Calls in flight across a fleet (issue 40): the packaged service as 3 processes on one redis-server with the shipped
 * defaults (the demo's {@code archives}: 2 at once per API key, leases of 30 s). 48 clients ask for archives of random
 * length under one API key, spread over the instances, and ask again soon after a refusal. The oracle is the archive
 * itself: each answer says when it started and ended ({@code startedAt}, {@code endedAt}: the wall clock every process
 * on this machine shares). At no instant do more than 2 of those intervals overlap, and while the clients keep asking,
 * 2 run at least 90% of the time. Before the measured 8 s, the same clients warm the instances up for 2 s under another
 * API key. Redis late enough that an instance's breaker opens is answered 503 by the fail mode (closed, the default of a
 * limit of calls in flight): counted, never an archive more.
 */
class InFlightFleetIT {

    private static final int M = 2;
    private static final Pattern STARTED = Pattern.compile("\"startedAt\":\"([^\"]+)\"");
    private static final Pattern ENDED = Pattern.compile("\"endedAt\":\"([^\"]+)\"");

    private record Run(long started, long ended, int instance, String policyField) {
    }

    @Test
    void atNoInstantDoMoreThanTwoArchivesRunAcrossThreeInstances() throws Exception {
        try (SharedFleet fleet = SharedFleet.use(InFlightFleetIT.class)) { // the demo's archives as shipped
            List<ServiceProcess> instances = fleet.instances();
            // first a warm-up under another API key: the three JVMs compile the paths they run (a cold JVM on 2 shared
            // cores takes a few hundred ms per call at first, which is no part of what the limit keeps)
            hammer(instances, "warm-up", 2_000_000_000L, new Clients());
            Clients clients = new Clients();
            long stopWall = micros(Instant.now()) + 8_000_000; // when the clients stop asking, on the runs' clock
            hammer(instances, "fleet", 8_000_000_000L, clients);
            ConcurrentLinkedQueue<Run> runs = clients.runs;
            ConcurrentLinkedQueue<String> unexpected = clients.unexpected;
            java.util.concurrent.atomic.AtomicInteger unavailable = clients.unavailable;
            assertEquals(List.of(), List.copyOf(unexpected),
                    "only archives, refusals in the concurrency form and 503s of the fail mode");
            // sweep the runs' edges in time: an end at the same instant as a start frees its slot first
            List<long[]> edges = new ArrayList<>();
            for (Run r : runs) {
                edges.add(new long[] { r.started(), 1 });
                edges.add(new long[] { r.ended(), -1 });
            }
            edges.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
            int running = 0;
            int most = 0;
            long full = 0; // while the clients asked: from the first start until they stopped
            long last = edges.get(0)[0];
            for (long[] e : edges) {
                if (running == M && last < stopWall) {
                    full += Math.min(e[0], stopWall) - last;
                }
                running += (int) e[1];
                most = Math.max(most, running);
                last = e[0];
            }
            long span = stopWall - edges.get(0)[0];
            double busy = (double) full / span;
            System.out.printf("three instances, 48 clients, one API key: %d archives ran, at most %d at once (M = %d); "
                    + "%d of them running %.1f%% of %d ms; %d answers 503 (Redis late, fail mode closed)%n", runs.size(), most,
                    M, M, 100 * busy, span / 1000, unavailable.get());
            for (ServiceProcess s : instances) {
                s.log().lines().filter(l -> l.contains("WARN") || l.contains("ERROR"))
                        .forEach(l -> System.out.println("DIAG " + l));
            }
            if (most > M) { // which runs overlapped, and what each was told (a fail mode's local share reads q=1)
                for (Run r : runs) {
                    long overlapping = runs.stream().filter(o -> o.started() < r.ended() && r.started() < o.ended()).count();
                    if (overlapping > M) {
                        System.out.println("OVERLAP " + r + " overlaps " + (overlapping - 1) + " others");
                    }
                }
            }
            assertTrue(most <= M, most + " archives ran at once");
            assertTrue(busy >= 0.90, "2 archives ran only " + 100 * busy + "% of the time while 48 clients asked");
            for (ServiceProcess s : instances) {
                assertEquals(0, s.log().lines().filter(l -> l.contains("ERROR")).count(), s.log());
            }
        }
    }

    /** What the clients saw: the archives that ran, the 503s of the fail mode, and anything else. */
    private static final class Clients {
        final ConcurrentLinkedQueue<Run> runs = new ConcurrentLinkedQueue<>();
        final ConcurrentLinkedQueue<String> unexpected = new ConcurrentLinkedQueue<>();
        final java.util.concurrent.atomic.AtomicInteger unavailable = new java.util.concurrent.atomic.AtomicInteger();
    }

    /** 48 clients ask for archives of 0.3 to 1 s under {@code apiKey} for {@code nanos}, each soon again after a refusal. */
    private static void hammer(List<ServiceProcess> instances, String apiKey, long nanos, Clients seen)
            throws InterruptedException {
        FleetClients.run(instances, 48, nanos, seen.unexpected, (http, target, random) -> {
            String seconds = String.format(java.util.Locale.ROOT, "%.3f", 0.3 + random.nextInt(700) / 1000.0);
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + target.port
                    + "/api/reports/archive?seconds=" + seconds)).header("X-Api-Key", apiKey)
                    .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() == 200) {
                seen.runs.add(new Run(instant(STARTED, r.body()), instant(ENDED, r.body()), target.port,
                        r.headers().firstValue("RateLimit-Policy").orElse("")));
            } else if (r.statusCode() == 429 && r.body().contains("#quota-exceeded") && r.body().contains(" in flight\"")) {
                TimeUnit.MILLISECONDS.sleep(100 + random.nextInt(100)); // and ask again
            } else if (r.statusCode() == 503 && r.body().contains("#temporary-reduced-capacity")) {
                seen.unavailable.incrementAndGet(); // Redis late enough that the fail mode (closed) refused
                TimeUnit.MILLISECONDS.sleep(100 + random.nextInt(100));
            } else {
                seen.unexpected.add(r.statusCode() + " " + r.body());
            }
        });
    }

    private static long instant(Pattern p, String body) {
        Matcher m = p.matcher(body);
        assertTrue(m.find(), body);
        return micros(Instant.parse(m.group(1)));
    }

    private static long micros(Instant t) {
        return t.getEpochSecond() * 1_000_000 + t.getNano() / 1000;
    }
}
