package dev.slidegate.health;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import dev.slidegate.http.SmallLimits;
import dev.slidegate.metrics.ObservabilityTest;
import dev.slidegate.testing.RedisTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * Readiness follows Redis when the default fail mode is {@code closed}: ready while Redis answers, not
 * ready (503) while it is frozen, ready again once it answers; the store errors, the error outcome
 * and the fail-mode transitions are counted.
 */
@QuarkusTest
@TestProfile(RedisHealthTest.FailClosed.class)
class RedisHealthTest {

    public static class FailClosed extends SmallLimits {
        @Override
        public Map<String, String> getConfigOverrides() {
            return plus("slidegate.store", "redis", "slidegate.fail-mode", "closed", "slidegate.redis.timeout", "100ms",
                    "slidegate.redis.cool-down", "200ms", "slidegate.policies.products.limits", "1000/1s");
        }

        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(RedisTestResource.class));
        }
    }

    @Test
    void readinessFollowsRedisUpAndDown() throws InterruptedException {
        given().get("/q/health/ready").then().statusCode(200).body("status", equalTo("UP"))
                .body("checks.find { it.name == 'Slidegate store' }.data.redis", equalTo("up"));
        given().get("/api/products").then().statusCode(200);
        double errors = value("slidegate_store_errors_total\\{store=\"redis\"}");
        double toFailMode = value("slidegate_failmode_transitions_total\\{to=\"fail-mode\"}");
        double toStore = value("slidegate_failmode_transitions_total\\{to=\"store\"}");
        double refusedByError = ObservabilityTest.counter("products", "error");

        RedisTestResource.server().signal("STOP");
        try {
            given().get("/q/health/ready").then().statusCode(503).body("status", equalTo("DOWN"))
                    .body("checks.find { it.name == 'Slidegate store' }.data.redis", startsWith("unreachable"));
            for (int i = 0; i < 4; i++) {
                given().get("/api/products").then().statusCode(503);
            }
        } finally {
            RedisTestResource.server().signal("CONT");
        }
        assertTrue(value("slidegate_store_errors_total\\{store=\"redis\"}") >= errors + 3, "store errors counted");
        assertTrue(ObservabilityTest.counter("products", "error") >= refusedByError + 4, "the 503s are the error outcome");
        assertTrue(value("slidegate_failmode_transitions_total\\{to=\"fail-mode\"}") == toFailMode + 1,
                "one switch to the fail mode");

        given().get("/q/health/ready").then().statusCode(200).body("status", equalTo("UP"));
        // the breaker probes after its cool-down, then uses Redis again
        dev.slidegate.testing.Eventually.eventually(java.time.Duration.ofSeconds(5),
                () -> given().get("/api/products").then().extract().statusCode(),
                s -> s == 200, "back on Redis");
        assertTrue(value("slidegate_failmode_transitions_total\\{to=\"store\"}") == toStore + 1,
                "one switch back to the store");
    }

    // a Redis that answers but refuses writes decides nothing: readiness and the fail mode follow it,
    // one log line names the cause and the fix, and it heals without a restart. Read-only (a replica),
    // then out of memory (maxmemory with the default noeviction)
    @Test
    void aRedisThatRefusesWritesIsAnOutage() throws InterruptedException {
        String[][] refusals = { { "REPLICAOF", "127.0.0.1", "1" }, { "CONFIG", "SET", "maxmemory", "1" } };
        String[][] heals = { { "REPLICAOF", "NO", "ONE" }, { "CONFIG", "SET", "maxmemory", "0" } };
        String[] causes = { "read-only replica", "out of memory" };
        for (int c = 0; c < refusals.length; c++) {
            awaitProducts(200);
            try (dev.slidegate.testing.Resp redis = RedisTestResource.server().connect();
                    dev.slidegate.testing.LogCapture log = dev.slidegate.testing.LogCapture.of("dev.slidegate")) {
                redis.call(refusals[c]);
                try {
                    given().get("/q/health/ready").then().statusCode(503).body("status", equalTo("DOWN"))
                            .body("checks.find { it.name == 'Slidegate store' }.data.redis", startsWith("refuses writes: "))
                            .body("checks.find { it.name == 'Slidegate store' }.data.redis",
                                    org.hamcrest.Matchers.containsString(causes[c]));
                    for (int i = 0; i < 4; i++) { // a fixed window: its first write needs memory (a sliding log's
                        // trim writes first, and Redis lets a script that has written go on past maxmemory)
                        given().header("X-Api-Key", "w" + c + "-" + i).get("/api/reports").then().statusCode(503);
                    }
                    String cause = causes[c];
                    // read-only: the breaker opens ("decisions in a row"); out of memory: each decision that needs
                    // memory fails on its own, Redis still deciding on the windows it holds ("lack of memory")
                    long lines = log.lines().stream()
                            .filter(l -> (l.contains("decisions in a row") || l.contains("for lack of memory"))
                                    && l.contains(cause))
                            .count();
                    assertTrue(lines == 1, "one line names the cause: " + log.lines());
                } finally {
                    redis.call(heals[c]);
                }
            }
            given().get("/q/health/ready").then().statusCode(200).body("status", equalTo("UP"));
            awaitProducts(200);
        }
    }

    private static void awaitProducts(int expected) {
        dev.slidegate.testing.Eventually.eventually(java.time.Duration.ofSeconds(5),
                () -> given().get("/api/products").then().extract().statusCode(),
                s -> s == expected, "GET /api/products answering " + expected);
    }

    private static double value(String series) {
        Matcher m = Pattern.compile(series + " ([0-9.E]+)").matcher(ObservabilityTest.metrics());
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }
}
