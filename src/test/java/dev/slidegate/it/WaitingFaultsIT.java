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

    @Test
    void aReservationOutlivesRedisAndNewCallsFollowTheFailMode() throws Exception {
        try (RedisServer redis = RedisServer.start(); ServiceProcess service = start(redis)) {
            assertEquals(200, stock(service).statusCode());
            long sent = micros(Instant.now());
            CompletableFuture<HttpResponse<String>> held = stockAsync(service);
            TimeUnit.MILLISECONDS.sleep(500); // reserved by now: its answer is ~2 s away
            assertTrue(!held.isDone(), "the third call waits for its permit");
            redis.signal("KILL");
            HttpResponse<String> r = held.get(10, TimeUnit.SECONDS);
            assertEquals(200, r.statusCode(), "admitted before Redis died: runs at its instant, " + r.body());
            long asked = askedAt(r);
            assertTrue(asked >= sent + 1_000_000, "held until its permit's instant, not run early: asked " + (asked - sent)
                    + " us after it was sent");
            // new decisions: Redis is gone, the fail mode (local, the default) decides in process; never a 5xx
            HttpResponse<String> next = stock(service);
            assertTrue(next.statusCode() == 200 || next.statusCode() == 429, next.statusCode() + " " + next.body());
        }
    }

    @Test
    void anInstanceKilledWithWaitingCallsLeavesTheirPermitsCharged() throws Exception {
        try (RedisServer redis = RedisServer.start(); ServiceProcess a = start(redis); ServiceProcess b = start(redis)) {
            long first = micros(Instant.now());
            assertEquals(200, stock(a).statusCode());
            CompletableFuture<HttpResponse<String>> orphan = stockAsync(a);
            TimeUnit.MILLISECONDS.sleep(300);
            ProcessHandle.of(a.pid()).ifPresent(ProcessHandle::destroyForcibly);
            // b's call queues behind the orphan's permit (2 s after the first call): its own comes 4 s after the first
            // call; had the orphan's permit been lost, it would have been 2 s
            HttpResponse<String> r = stock(b);
            assertEquals(200, r.statusCode(), r.body());
            long asked = askedAt(r);
            assertTrue(asked >= first + 4_000_000, "queued behind the killed instance's reserved permit: asked "
                    + (asked - first) / 1000 + " ms after the first call");
            assertTrue(orphan.handle((x, e) -> x == null || x.statusCode() != 200).get(10, TimeUnit.SECONDS),
                    "the killed instance's waiting call never got an answer");
        }
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
