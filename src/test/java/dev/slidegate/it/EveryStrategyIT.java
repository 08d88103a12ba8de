package dev.slidegate.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.slidegate.testing.AdminCredentials;
import dev.slidegate.testing.RedisCluster;
import dev.slidegate.testing.RedisServer;
import dev.slidegate.testing.Resp;

/**
 * The packaged service (the jar in every {@code verify}, the native executable with {@code -Dnative}) with
 * every strategy, on the memory store, on one redis-server and on a Redis Cluster of 6 nodes, all started
 * here: a policy per strategy limits a path that no endpoint serves (path policies, configured at start-up
 * with {@code -D}), the interceptor limits a {@code Uni} endpoint and a {@code CompletionStage} method of a
 * CDI bean that is not an endpoint (the demo's {@code Warehouse}), the programmatic {@code RateLimiter}
 * charges a cost computed per request (the demo's exports); on Redis the windows are found in Redis,
 * so the Lua scripts decided, not a fail mode.
 */
class EveryStrategyIT {

    static final List<String> STRATEGIES = List.of("sliding-log", "sliding-counter", "fixed-window", "token-bucket");

    @Test
    void onTheMemoryStore() throws Exception {
        try (ServiceProcess service = ServiceProcess.start(properties("memory", null, false))) {
            everyLimitHolds(service);
            theLivePageStreamsTheWindows(service);
        }
    }

    @Test
    void onRedis() throws Exception {
        try (RedisServer redis = RedisServer.start();
                ServiceProcess service = ServiceProcess.start(properties("redis", redis.uri(), false))) {
            everyLimitHolds(service);
            try (Resp r = redis.connect()) {
                for (String policy : policies()) {
                    assertFalse(r.scan("slidegate:{" + policy + ":*").isEmpty(), policy + "'s window is in Redis");
                }
            }
        }
    }

    @Test
    void onARedisCluster() throws Exception {
        try (RedisCluster cluster = RedisCluster.start();
                ServiceProcess service = ServiceProcess.start(properties("redis", cluster.hosts(), true))) {
            everyLimitHolds(service);
            for (String policy : policies()) {
                int found = 0;
                for (RedisServer master : cluster.masters()) {
                    try (Resp r = master.connect()) {
                        found += r.scan("slidegate:{" + policy + ":*").size();
                    }
                }
                assertTrue(found > 0, policy + "'s window is in the cluster");
            }
        }
    }

    private static List<String> policies() {
        List<String> names = new ArrayList<>(STRATEGIES.stream().map(s -> "p-" + s).toList());
        names.addAll(List.of("products", "warehouse", "exports"));
        return names;
    }

    private static String[] properties(String store, String redisHosts, boolean cluster) {
        List<String> p = new ArrayList<>(List.of("-Dslidegate.store=" + store,
                "-Dslidegate.policies.products.limits=3/1h", "-Dslidegate.policies.warehouse.limits=2/1h"));
        for (String s : STRATEGIES) {
            p.add("-Dslidegate.policies.p-" + s + ".limits=2/1h");
            p.add("-Dslidegate.policies.p-" + s + ".strategy=" + s);
            p.add("-Dslidegate.policies.p-" + s + ".paths=/limited/" + s + "/*");
        }
        if (redisHosts != null) {
            p.add("-Dquarkus.redis.hosts=" + redisHosts);
        }
        if (cluster) {
            p.add("-Dquarkus.redis.client-type=cluster");
        }
        return p.toArray(String[]::new);
    }

    private static void everyLimitHolds(ServiceProcess service) {
        for (String s : STRATEGIES) {
            // no endpoint serves these paths: admitted requests get 404, the third one the policy's 429
            for (int i = 0; i < 2; i++) {
                HttpResponse<String> admitted = service.get("/limited/" + s + "/" + i);
                assertEquals(404, admitted.statusCode(), s + ", call " + (i + 1) + ": " + admitted.body());
                assertTrue(admitted.headers().firstValue("RateLimit").orElse("").startsWith("\"p-" + s + "-1h\""),
                        s + ": " + admitted.headers().map());
            }
            assertRefused(service.get("/limited/" + s + "/other"), "p-" + s);
        }
        for (int i = 0; i < 3; i++) {
            assertEquals(200, service.get("/api/products/reactive").statusCode(), "reactive call " + (i + 1));
        }
        assertRefused(service.get("/api/products/reactive"), "products");
        for (int i = 0; i < 2; i++) {
            HttpResponse<String> stock = service.get("/api/products/" + (i + 1) + "/stock");
            assertEquals(200, stock.statusCode(), stock.body());
            assertTrue(stock.body().contains("\"units\""), stock.body());
        }
        // the programmatic limiter, charging 1 permit per 1 000 rows: 60 + 40 of 100, then 1 more is refused
        assertEquals(200, service.get("/api/reports/export?rows=60000", "X-Api-Key", "it-exports").statusCode());
        HttpResponse<String> second = service.get("/api/reports/export?rows=39001", "X-Api-Key", "it-exports");
        assertEquals(200, second.statusCode(), second.body());
        assertTrue(second.body().contains("\"permits\":40"), second.body());
        assertRefused(service.get("/api/reports/export?rows=1", "X-Api-Key", "it-exports"), "exports");
        assertEquals(200, service.get("/api/reports/export?rows=1", "X-Api-Key", "it-other").statusCode(), "another key");
        // plans apply to the programmatic RateLimiter as to annotations: the pro key's plan grants 1000 permits an hour
        for (int i = 0; i < 3; i++) {
            assertEquals(200, service.get("/api/reports/export?rows=100000", "X-Api-Key", "demo-pro-key").statusCode(),
                    "100 permits of the pro plan's 1000, call " + (i + 1));
        }
        for (String bad : List.of("0", "abc", "100001", "-5", "99999999999")) {
            HttpResponse<String> r = service.get("/api/reports/export?rows=" + bad, "X-Api-Key", "it-other");
            assertEquals(400, r.statusCode(), bad + ": " + r.body());
            assertTrue(r.body().contains("Ask for 1 to 100000 rows"), r.body());
        }
        HttpResponse<String> refused = service.get("/api/products/3/stock");
        assertRefused(refused, "warehouse");
        assertTrue(refused.body().contains("allows 2 calls per 1h in all, for every caller together"), refused.body());
    }

    private static void assertRefused(HttpResponse<String> r, String policy) {
        assertEquals(429, r.statusCode(), policy + ": " + r.body());
        assertEquals("application/problem+json;charset=UTF-8", r.headers().firstValue("Content-Type").orElse(""), policy);
        assertTrue(r.body().contains("\"policy\":\"" + policy + "\""), r.body());
        assertTrue(Long.parseLong(r.headers().firstValue("Retry-After").orElse("0")) > 0, policy + ": " + r.headers().map());
    }

    /** The live page's event stream sends a snapshot that names the policies in use. */
    private static void theLivePageStreamsTheWindows(ServiceProcess service) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.port + "/admin/stream"))
                .header("Authorization",
                        AdminCredentials.basicHeader())
                .timeout(Duration.ofSeconds(10)).GET().build();
        HttpResponse<java.io.InputStream> r = ServiceProcess.HTTP.send(request, HttpResponse.BodyHandlers.ofInputStream());
        assertEquals(200, r.statusCode());
        assertEquals("text/event-stream", r.headers().firstValue("Content-Type").orElse("").split(";")[0]);
        try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null && !line.startsWith("data:")) {
                // event and id lines
            }
            assertTrue(line != null && line.contains("\"p-token-bucket\"") && line.contains("\"warehouse\""),
                    "first event: " + line);
        }
    }
}
