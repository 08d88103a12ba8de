package dev.slidegate.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Base64;

import org.junit.jupiter.api.Test;

import dev.slidegate.testing.RedisServer;

/**
 * A caller over its limit, on two instances of the packaged service sharing one redis-server (shipped
 * defaults, but for a fixed instance count, so that no background script call is counted): refusals after the first are
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
            for (int i = 0; i < 50; i++) {
                HttpResponse<String> again = a.get("/api/products");
                assertEquals(429, again.statusCode());
                assertTrue(again.body().contains("\"policy\":\"products\""), again.body());
                assertTrue(again.headers().firstValue("RateLimit").orElse("").contains("r=0"), again.headers().toString());
                assertTrue(Long.parseLong(again.headers().firstValue("Retry-After").orElseThrow()) > 0);
            }
            assertEquals(before, redis.scriptCalls(), "50 repeated refusals made no Redis call");
            assertEquals(429, b.get("/api/products").statusCode(), "the other instance asks Redis and is refused too");

            HttpResponse<String> reset = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + b.port
                    + "/admin/policies/products/keys/ip:127.0.0.1")).header("Authorization", "Basic " + Base64.getEncoder()
                            .encodeToString("admin:slidegate-demo".getBytes()))
                    .DELETE().build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(204, reset.statusCode(), reset.body());
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            int status = 0;
            while (System.nanoTime() < deadline && (status = a.get("/api/products").statusCode()) != 200) {
                Thread.sleep(20);
            }
            assertEquals(200, status, "instance a admits again after the reset made through instance b");
            String summary = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + a.port + "/admin"))
                    .header("Authorization", "Basic " + Base64.getEncoder().encodeToString("admin:slidegate-demo".getBytes()))
                    .GET()
                    .build(), HttpResponse.BodyHandlers.ofString()).body();
            assertTrue(summary.matches("(?s).*\"refusedLocally\":(5[0-9]|[6-9][0-9]|[1-9][0-9]{2,}).*"), summary);
        }
    }

    private static ServiceProcess start(RedisServer redis) {
        // a fixed instance count: the instances' renewal script would otherwise add its own calls to the count
        return ServiceProcess.start("-Dquarkus.redis.hosts=" + redis.uri(), "-Dslidegate.policies.products.limits=3/10m",
                "-Dslidegate.fallback.instances=2");
    }

}
