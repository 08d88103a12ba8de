package dev.slidegate.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import dev.slidegate.testing.RedisServer;

/**
 * Leases of calls in flight when the instance holding them dies or stops (issue 40), on the packaged service: two
 * instances on one redis-server, the demo's {@code archives} (2 at once per API key) with leases of 3 s (renewed every
 * second). The instance that took both slots is killed ({@code kill -9}) or stopped ({@code SIGSTOP}) while its archives
 * run; the other instance is asked every 100 ms, and its answers (stamped by the test's clock before each is sent)
 * say when the slots came back. The two scenarios run side by side (each with its own instances): they mostly wait
 * for leases to expire.
 */
class InFlightLeasesIT {

    private static final long LEASE_MILLIS = 3_000;
    private static final long RENEWAL_MILLIS = LEASE_MILLIS / 3;
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final Pattern STARTED = Pattern.compile("\"startedAt\":\"([^\"]+)\"");
    private static final Pattern ENDED = Pattern.compile("\"endedAt\":\"([^\"]+)\"");

    // kill -9 with both slots held: the other instance refuses until the leases expire, then admits: not before the
    // last renewal's lease could have run out (1.75 s after the kill at the earliest: renewals come every 1 to 1.25 s),
    // and within the lease time and one renewal of the kill
    @Test
    @org.junit.jupiter.api.parallel.Execution(org.junit.jupiter.api.parallel.ExecutionMode.CONCURRENT)
    void theSlotsOfAKilledInstanceComeBackAfterTheLeaseTime() throws Exception {
        try (RedisServer redis = RedisServer.start(); ServiceProcess.Fleet fleet = fleet(redis)) {
            ServiceProcess holder = fleet.instances().get(0);
            ServiceProcess other = fleet.instances().get(1);
            String key = UUID.randomUUID().toString();
            holdBoth(holder, other, key, 30, 30);
            signal(holder, "KILL");
            ProcessHandle.of(holder.pid()).ifPresent(h -> h.onExit().join());
            long killed = System.nanoTime();
            List<CompletableFuture<HttpResponse<String>>> admitted = new ArrayList<>();
            long back = firstAdmission(other, key, killed, 0.1, admitted);
            assertEquals(200, admitted.get(0).join().statusCode());
            long after = (back - killed) / 1_000_000;
            System.out.printf("kill -9: the other instance admitted again %d ms after the kill (lease %d ms, renewed every"
                    + " %d ms)%n", after, LEASE_MILLIS, RENEWAL_MILLIS);
            // the last renewal came at most a renewal period and a tick of the renewal timer (250 ms) before the kill,
            // give or take 250 ms of a late timer on these shared cores: its lease ran out no earlier
            assertTrue(after >= LEASE_MILLIS - RENEWAL_MILLIS - 500, "admitted " + after + " ms after the kill: "
                    + "before the last renewal's lease could have run out");
            assertTrue(after <= LEASE_MILLIS + RENEWAL_MILLIS, "admitted only " + after + " ms after the kill");
        }
    }

    // SIGSTOP past the lease time: the leases expire, so the other instance starts 2 archives of its own while the
    // stopped one's are still unfinished. Once continued, the stopped instance's archives run on to their end (Slidegate
    // cannot stop work that has started: 4 at once for a while, as docs/strategies.md says), it says so in one WARN line,
    // and the end of its calls releases nothing of the other's: the other's 2 still hold both slots after. Its archives
    // take 4 s and 9 s: the stop lasts longer than 4 s (a lease time less a renewal, then a lease time), so when the
    // instance runs again the first one's end is due with its renewal timer, and its end finds its lease gone while the
    // renewal finds the other's: still one line for both
    @Test
    @org.junit.jupiter.api.parallel.Execution(org.junit.jupiter.api.parallel.ExecutionMode.CONCURRENT)
    void aStoppedInstanceLosesItsLeasesAndSaysSo() throws Exception {
        try (RedisServer redis = RedisServer.start(); ServiceProcess.Fleet fleet = fleet(redis)) {
            ServiceProcess holder = fleet.instances().get(0);
            ServiceProcess other = fleet.instances().get(1);
            String key = UUID.randomUUID().toString();
            List<CompletableFuture<HttpResponse<String>>> stopped = holdBoth(holder, other, key, 4, 9);
            signal(holder, "STOP");
            long stoppedAt = System.nanoTime();
            List<CompletableFuture<HttpResponse<String>>> meanwhile = new ArrayList<>();
            try {
                long back = firstAdmission(other, key, stoppedAt, 8, meanwhile);
                long after = (back - stoppedAt) / 1_000_000;
                System.out.printf("SIGSTOP: the other instance admitted again %d ms after the stop%n", after);
                assertTrue(after <= LEASE_MILLIS + RENEWAL_MILLIS, "admitted only " + after + " ms after the stop");
                meanwhile.add(archive(other, key, 8)); // the second slot
                eventually(() -> inFlight(other, key) == 2, "both slots held by the other instance");
                assertEquals(429, archive(other, key, 0.1).join().statusCode(), "both slots held by the other instance");
                Thread.sleep(LEASE_MILLIS); // past a lease time: the other's leases are renewed, still held
                assertEquals(429, archive(other, key, 0.1).join().statusCode(), "the other's leases outlive a lease time");
            } finally {
                signal(holder, "CONT");
            }
            eventually(() -> warnings(holder) == 1, "one WARN line on the stopped instance");
            String warning = holder.log().lines().filter(l -> l.contains("WARN") && l.contains("archives")).findFirst()
                    .orElseThrow();
            assertTrue(warning.contains("2 call(s) of policy 'archives' lost their leases") && warning.contains("paused"),
                    warning);
            List<long[]> runs = new ArrayList<>();
            for (CompletableFuture<HttpResponse<String>> f : stopped) {
                HttpResponse<String> r = f.join();
                assertEquals(200, r.statusCode(), "the stopped instance's archives ran on to their end");
                runs.add(new long[] { instant(STARTED, r.body()), instant(ENDED, r.body()) });
            }
            // their ends released nothing of the other's leases
            assertEquals(429, archive(holder, key, 0.1).join().statusCode(), "the other's 2 archives still hold the slots");
            assertEquals(429, archive(other, key, 0.1).join().statusCode(), "the other's 2 archives still hold the slots");
            for (CompletableFuture<HttpResponse<String>> f : meanwhile) {
                HttpResponse<String> r = f.join();
                assertEquals(200, r.statusCode(), r.body());
                runs.add(new long[] { instant(STARTED, r.body()), instant(ENDED, r.body()) });
            }
            assertEquals(4, mostAtOnce(runs), "2 stopped archives and the other's 2 ran at once, as documented");
            assertEquals(1, warnings(holder), "one WARN line, not one per renewal");
            eventually(() -> archive(other, key, 0.1).join().statusCode() == 200, "the slots free once every archive ended");
        }
    }

    // max-wait across instances (packaged, so natively too): with both slots taken, calls that arrive on either
    // instance wait instead of being refused, and run in the order they came as slots free, never more than 2 at once.
    // The runs are spaced so that one slot frees at a time (at 1.5 s, then every 1 s, and at 4.2 s): when two free at
    // once the first two tickets get them, and which of the two starts first depends on when each instance asks
    @Test
    @org.junit.jupiter.api.parallel.Execution(org.junit.jupiter.api.parallel.ExecutionMode.CONCURRENT)
    void callsWaitForASlotInArrivalOrderAcrossInstances() throws Exception {
        try (RedisServer redis = RedisServer.start();
                ServiceProcess.Fleet fleet = ServiceProcess.fleet(2, "-Dquarkus.redis.hosts=" + redis.uri(),
                        "-Dslidegate.policies.archives.max-wait=20s")) {
            ServiceProcess a = fleet.instances().get(0);
            ServiceProcess b = fleet.instances().get(1);
            String key = UUID.randomUUID().toString();
            List<CompletableFuture<HttpResponse<String>>> all = new ArrayList<>(List.of(archive(a, key, 1.5),
                    archive(a, key, 4.2)));
            eventually(() -> inFlight(b, key) == 2, "2 archives running");
            for (ServiceProcess target : List.of(b, a, b, a)) { // each arrives once the one before is queued
                all.add(archive(target, key, 1));
                Thread.sleep(300);
            }
            List<long[]> runs = new ArrayList<>();
            for (CompletableFuture<HttpResponse<String>> f : all) {
                HttpResponse<String> r = f.join();
                assertEquals(200, r.statusCode(), "every call waited for its slot: " + r.body());
                runs.add(new long[] { instant(STARTED, r.body()), instant(ENDED, r.body()) });
            }
            assertEquals(2, mostAtOnce(runs), "never more than 2 at once");
            for (int i = 3; i < runs.size(); i++) {
                assertTrue(runs.get(i - 1)[0] <= runs.get(i)[0], "the waiting calls ran in the order they came: " + i);
            }
        }
    }

    private static int mostAtOnce(List<long[]> runs) {
        int most = 0;
        for (long[] r : runs) {
            long at = r[0];
            most = Math.max(most, (int) runs.stream().filter(o -> o[0] <= at && at < o[1]).count());
        }
        return most;
    }

    private static ServiceProcess.Fleet fleet(RedisServer redis) {
        return ServiceProcess.fleet(2, "-Dquarkus.redis.hosts=" + redis.uri(),
                "-Dslidegate.policies.archives.lease=" + LEASE_MILLIS + "ms");
    }

    /** Two archives of {@code seconds} on {@code holder}, running once the admin of {@code other} counts them. */
    private static List<CompletableFuture<HttpResponse<String>>> holdBoth(ServiceProcess holder, ServiceProcess other,
            String key, double seconds, double secondsOfTheOther) throws Exception {
        List<CompletableFuture<HttpResponse<String>>> running = List.of(archive(holder, key, seconds),
                archive(holder, key, secondsOfTheOther));
        eventually(() -> inFlight(other, key) == 2, "2 archives running on the first instance");
        assertEquals(429, archive(other, key, 0.1).join().statusCode(), "both slots held");
        return running;
    }

    /**
     * When (nanoTime, stamped before its request was sent) the first of archives of {@code seconds} asked every 100 ms was
     * admitted: it answered 200, or not at once (it runs); that one is added to {@code admitted}.
     */
    private static long firstAdmission(ServiceProcess target, String key, long since, double seconds,
            List<CompletableFuture<HttpResponse<String>>> admitted) throws Exception {
        while (System.nanoTime() - since < 3 * LEASE_MILLIS * 1_000_000) {
            long sent = System.nanoTime();
            CompletableFuture<HttpResponse<String>> r = archive(target, key, seconds);
            HttpResponse<String> answer = r.copy().completeOnTimeout(null, 2, java.util.concurrent.TimeUnit.SECONDS).join();
            if (answer == null || answer.statusCode() == 200) {
                admitted.add(r);
                return sent;
            }
            assertEquals(429, answer.statusCode(), answer.body());
            Thread.sleep(Math.max(0, 100 - (System.nanoTime() - sent) / 1_000_000));
        }
        throw new AssertionError("no slot came back within 3 lease times");
    }

    private static CompletableFuture<HttpResponse<String>> archive(ServiceProcess target, String key, double seconds) {
        return HTTP.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + target.port
                + "/api/reports/archive?seconds=" + seconds)).header("X-Api-Key", key).timeout(Duration.ofSeconds(30))
                .GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private static int inFlight(ServiceProcess target, String key) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + target.port
                + "/admin/policies/archives/keys/hdr:" + key)).header("Accept", "application/json")
                .header("Authorization", "Basic " + Base64.getEncoder()
                        .encodeToString("admin:slidegate-demo".getBytes(StandardCharsets.UTF_8)))
                .GET().build(), HttpResponse.BodyHandlers.ofString());
        Matcher m = Pattern.compile("\"used\":(\\d+)").matcher(r.body());
        return r.statusCode() == 200 && m.find() ? Integer.parseInt(m.group(1)) : -1;
    }

    private static long warnings(ServiceProcess s) throws Exception {
        return s.log().lines().filter(l -> l.contains("WARN") && l.contains("archives")).count();
    }

    private static void signal(ServiceProcess s, String signal) throws Exception {
        assertEquals(0, new ProcessBuilder("kill", "-" + signal, String.valueOf(s.pid())).inheritIO().start().waitFor());
    }

    private interface Check {
        boolean holds() throws Exception;
    }

    private static void eventually(Check check, String what) throws Exception {
        long until = System.nanoTime() + 20_000_000_000L;
        while (!check.holds()) {
            if (System.nanoTime() > until) {
                throw new AssertionError("not within 20 s: " + what);
            }
            Thread.sleep(100);
        }
    }

    private static long instant(Pattern p, String body) {
        Matcher m = p.matcher(body);
        assertTrue(m.find(), body);
        Instant t = Instant.parse(m.group(1));
        return t.getEpochSecond() * 1_000_000 + t.getNano() / 1000;
    }
}
