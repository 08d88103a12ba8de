package dev.slidegate.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.slidegate.testing.AdminCredentials;
import dev.slidegate.testing.RedisServer;

/**
 * A caller over its limit, on two instances of the packaged service sharing one redis-server, with the
 * shipped defaults: refusals after the first are
 * answered from each instance's memory without a Redis
 * call, with the same 429; and a reset through one instance's admin API reaches the other's memory
 * (Redis pub/sub), which admits the caller again at once.
 */
class RefusalCacheIT {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Test
    void refusalsAreAnsweredLocallyAndAResetReachesEveryInstance() throws Exception {
        try (RedisServer redis = RedisServer.start();
                ServiceProcess a = start(redis);
                ServiceProcess b = start(redis)) {
            for (int i = 0; i < 3; i++) {
                assertEquals(200, a.get("/api/products").statusCode());
            }
            HttpResponse<String> first = a.get("/api/products");
            assertEquals(429, first.statusCode());
            long before = redis.scriptCalls();
            long localBefore = refusedLocally(a);
            long started = System.nanoTime();
            for (int i = 0; i < 50; i++) {
                HttpResponse<String> again = a.get("/api/products");
                assertEquals(429, again.statusCode());
                assertTrue(again.body().contains("\"policy\":\"products\""), again.body());
                assertTrue(again.headers().firstValue("RateLimit").orElse("").contains("r=0"), again.headers().toString());
                assertTrue(Long.parseLong(again.headers().firstValue("Retry-After").orElseThrow()) > 0);
            }
            // every one of the 50 was answered from memory; the only script calls meanwhile are the two
            // instances' once-a-second renewals of the instance count (shipped defaults)
            assertEquals(localBefore + 50, refusedLocally(a), "50 repeated refusals answered without Redis");
            long seconds = (System.nanoTime() - started) / 1_000_000_000L + 1;
            long calls = redis.scriptCalls() - before;
            assertTrue(calls <= 2 * (seconds + 1), calls + " script calls in " + seconds + " s: no more than the renewals");
            assertEquals(429, b.get("/api/products").statusCode(), "the other instance asks Redis and is refused too");

            HttpResponse<String> reset = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + b.port
                    + "/admin/policies/products/keys/ip:127.0.0.1")).header("Authorization", AdminCredentials.basicHeader())
                    .DELETE().build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(204, reset.statusCode(), reset.body());
            dev.slidegate.testing.Eventually.eventually(Duration.ofSeconds(5), () -> a.get("/api/products").statusCode(),
                    s -> s == 200,
                    "instance a admitting again after the reset made through instance b");
        }
    }

    private static ServiceProcess start(RedisServer redis) {
        return ServiceProcess.start("-Dquarkus.redis.hosts=" + redis.uri(), "-Dslidegate.policies.products.limits=3/10m");
    }

    /** {@code refusedLocally} of the instance's admin summary. */
    private static long refusedLocally(ServiceProcess s) throws Exception {
        String summary = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.port + "/admin"))
                .header("Authorization", AdminCredentials.basicHeader()).GET()
                .build(), HttpResponse.BodyHandlers.ofString()).body();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"refusedLocally\":(\\d+)").matcher(summary);
        assertTrue(m.find(), summary);
        return Long.parseLong(m.group(1));
    }

}
