package dev.slidegate.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import dev.slidegate.testing.RedisServer;

/**
 * Faults while calls wait for their permits (issue 38), against packaged instances on a real redis-server, the demo
 * warehouse limited to 1 per 2 s with max-wait 5 s. A call admitted for a later instant keeps its admission when Redis
 * dies meanwhile (it runs once, at its instant; nothing asks again), and the next calls are decided by the fail mode
 * (local: in process). An instance killed while its calls wait leaves their permits charged (an over-charge): another
 * instance's calls queue behind them and are never admitted into their window.
 */
class WaitingFaultsIT {

    private static final Pattern ASKED = Pattern.compile("\"askedAt\":\"([^\"]+)\"");
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private static final long W = 2_000_000; // the warehouse's window here, µs

    // the held call is judged by the warehouse's own instants: it runs a whole window after the call before it, whose
    // permit took the window (never earlier, whatever Redis did meanwhile), and it waited in the waiting room
    // (observed in the service's metrics, not assumed after a sleep) when Redis died
    @Test
    void aReservationOutlivesRedisAndNewCallsFollowTheFailMode() throws Exception {
        try (RedisServer redis = RedisServer.start(); ServiceProcess service = start(redis)) {
            HttpResponse<String> first = stock(service);
            assertEquals(200, first.statusCode(), first.body());
            long firstAsked = askedAt(first);
            CompletableFuture<HttpResponse<String>> held = stockAsync(service);
            dev.slidegate.testing.Eventually.eventually(Duration.ofSeconds(5), () -> waiting(service), n -> n == 1,
                    "the second call waits for its permit");
            assertTrue(!held.isDone(), "the second call waits for its permit");
            redis.signal("KILL");
            HttpResponse<String> r = held.get(10, TimeUnit.SECONDS);
            assertEquals(200, r.statusCode(), "admitted before Redis died: runs at its instant, " + r.body());
            long asked = askedAt(r);
            assertTrue(asked >= firstAsked + W, "one run per window by the warehouse's clock: the held call ran "
                    + (asked - firstAsked) / 1000 + " ms after the first");
            // new decisions: Redis is gone, the fail mode (local, the default) decides in process; never a 5xx
            HttpResponse<String> next = stock(service);
            assertTrue(next.statusCode() == 200 || next.statusCode() == 429, next.statusCode() + " " + next.body());
        }
    }

    // b's call queues behind the permit of a's waiting call (a killed while it waits), judged by the warehouse's instants:
    // it runs at least two windows after the first call, the orphan's permit taking the one between (had that permit
    // been lost, one window after)
    @Test
    void anInstanceKilledWithWaitingCallsLeavesTheirPermitsCharged() throws Exception {
        try (RedisServer redis = RedisServer.start(); ServiceProcess a = start(redis); ServiceProcess b = start(redis)) {
            HttpResponse<String> first = stock(a);
            assertEquals(200, first.statusCode(), first.body());
            long firstAsked = askedAt(first);
            CompletableFuture<HttpResponse<String>> orphan = stockAsync(a);
            dev.slidegate.testing.Eventually.eventually(Duration.ofSeconds(5), () -> waiting(a), n -> n == 1,
                    "a's second call waits for its permit");
            ProcessHandle.of(a.pid()).ifPresent(ProcessHandle::destroyForcibly);
            HttpResponse<String> r = stock(b);
            assertEquals(200, r.statusCode(), r.body());
            long asked = askedAt(r);
            assertTrue(asked >= firstAsked + 2 * W, "queued behind the killed instance's reserved permit: ran "
                    + (asked - firstAsked) / 1000 + " ms after the first call");
            assertTrue(orphan.handle((x, e) -> x == null || x.statusCode() != 200).get(10, TimeUnit.SECONDS),
                    "the killed instance's waiting call never got an answer");
        }
    }

    /** How many calls of the warehouse wait in {@code s}, as its metrics say. */
    private static long waiting(ServiceProcess s) {
        return s.get("/q/metrics").body().lines().filter(l -> l.startsWith("slidegate_waiting{policy=\"warehouse\"}"))
                .mapToLong(l -> (long) Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }

    private static ServiceProcess start(RedisServer redis) {
        return ServiceProcess.start("-Dquarkus.redis.hosts=" + redis.uri(), "-Dslidegate.policies.warehouse.limits=1/2s",
                "-Dslidegate.policies.warehouse.max-wait=5s");
    }

    private static HttpRequest request(ServiceProcess s) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.port + "/api/products/1/stock"))
                .timeout(Duration.ofSeconds(10)).GET().build();
    }

    private static HttpResponse<String> stock(ServiceProcess s) throws Exception {
        return HTTP.send(request(s), HttpResponse.BodyHandlers.ofString());
    }

    private static CompletableFuture<HttpResponse<String>> stockAsync(ServiceProcess s) {
        return HTTP.sendAsync(request(s), HttpResponse.BodyHandlers.ofString());
    }

    private static long askedAt(HttpResponse<String> r) {
        Matcher m = ASKED.matcher(r.body());
        assertTrue(m.find(), r.body());
        return micros(Instant.parse(m.group(1)));
    }

    private static long micros(Instant t) {
        return t.getEpochSecond() * 1_000_000 + t.getNano() / 1000;
    }
}
