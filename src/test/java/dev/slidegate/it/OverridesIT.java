package dev.slidegate.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import dev.slidegate.testing.AdminCredentials;
import dev.slidegate.testing.RedisServer;

/**
 * Overrides across instances, as users run them: the packaged service as two processes on one
 * redis-server, shipped defaults. An override set through one instance is applied by the other
 * within 1 s (by the caller's clock: every call sent more than 1 s after the PUT was answered obeys
 * it); a removal too; a short expiry ends new limits on both; an instance started later applies the
 * overrides at its first request; a blocked caller stays blocked while Redis is frozen.
 */
class OverridesIT {

    private static final String AUTH = AdminCredentials.basicHeader();
    private static final long SECOND = 1_000_000_000L;

    private static HttpResponse<String> admin(ServiceProcess p, String method, String path, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + p.port + path))
                .timeout(Duration.ofSeconds(10)).header("Authorization", AUTH);
        b = body == null ? b.method(method, HttpRequest.BodyPublishers.noBody())
                : b.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(body));
        return ServiceProcess.HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static int call(ServiceProcess p, String apiKey) {
        return p.get("/api/reports", "X-Api-Key", apiKey).statusCode();
    }

    /**
     * Calls {@code p} every 20 ms for up to 1.5 s after {@code since} (nanoTime): every call sent more
     * than 1 s after it must answer {@code status}; returns how long after {@code since} the first such
     * answer came, in ms.
     */
    private static long appliedWithinOneSecond(ServiceProcess p, String apiKey, int status, long since) throws Exception {
        long first = -1;
        while (System.nanoTime() - since < 3 * SECOND / 2) {
            long sent = System.nanoTime();
            int got = call(p, apiKey);
            if (got == status && first < 0) {
                first = (System.nanoTime() - since) / 1_000_000;
            }
            if (sent - since > SECOND) {
                assertEquals(status, got, "a call sent " + (sent - since) / 1_000_000 + " ms after the change");
            }
            Thread.sleep(20);
        }
        assertTrue(first >= 0, "never answered " + status);
        return first;
    }

    @Test
    void overridesMadeThroughOneInstanceAreAppliedByTheOtherWithinOneSecond() throws Exception {
        try (RedisServer redis = RedisServer.start();
                ServiceProcess a = ServiceProcess.start("-Dquarkus.redis.hosts=" + redis.uri());
                ServiceProcess b = ServiceProcess.start("-Dquarkus.redis.hosts=" + redis.uri())) {
            assertTrue(!a.log().contains("evicts keys at maxmemory"), "noeviction (redis-server's default) keeps windows");
            String victim = "v-" + UUID.randomUUID();
            assertEquals(200, call(b, victim));

            HttpResponse<String> put = admin(a, "PUT", "/admin/policies/reports/keys/hdr:" + victim + "/override",
                    "{\"block\": true, \"reason\": \"it test\"}");
            long since = System.nanoTime();
            assertEquals(200, put.statusCode(), put.body());
            assertEquals(429, call(a, victim), "the instance that made the change applies it at once");
            long blockedAfter = appliedWithinOneSecond(b, victim, 429, since);
            System.out.printf("OverridesIT: block applied by the other instance %d ms after the PUT%n", blockedAfter);
            assertTrue(admin(b, "GET", "/admin/overrides", null).body().contains("\"setBy\":\"admin\""));

            // a later instance applies it at its first request
            try (ServiceProcess c = ServiceProcess.start("-Dquarkus.redis.hosts=" + redis.uri())) {
                assertEquals(429, call(c, victim));
            }

            // a frozen Redis: the store cannot decide, the block still refuses (it needs no store)
            redis.signal("STOP");
            try {
                assertEquals(429, call(b, victim));
            } finally {
                redis.signal("CONT");
            }

            HttpResponse<String> delete = admin(b, "DELETE", "/admin/policies/reports/keys/hdr:" + victim + "/override", null);
            since = System.nanoTime();
            assertEquals(204, delete.statusCode(), delete.body());
            long liftedAfter = appliedWithinOneSecond(a, victim, 200, since);
            System.out.printf("OverridesIT: removal applied by the other instance %d ms after the DELETE%n", liftedAfter);

            // new limits through one instance; a short expiry ends them on both
            String k = "l-" + UUID.randomUUID();
            assertEquals(200, call(a, k));
            assertEquals(200, call(b, k));
            HttpResponse<String> limited = admin(a, "PUT", "/admin/policies/reports/keys/hdr:" + k + "/override",
                    "{\"limits\": [\"2/1h\"], \"expiresIn\": 3}");
            since = System.nanoTime();
            assertEquals(200, limited.statusCode(), limited.body());
            appliedWithinOneSecond(b, k, 429, since); // the two recorded count against the new 2
            HttpResponse<String> listed = b.get("/api/reports", "X-Api-Key", k);
            assertTrue(listed.headers().firstValue("RateLimit-Policy").orElse("").contains("q=2;"),
                    listed.headers().toString());
            // expired (3 s): the configured 100/1h applies again, on both
            dev.slidegate.testing.Eventually.eventually(java.time.Duration.ofSeconds(10),
                    () -> call(b, k) == 200 && call(a, k) == 200, both -> both,
                    "the override expiring on both instances");
        }
    }
}
