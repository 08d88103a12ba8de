package dev.slidegate.observability;

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
        long deadline = System.nanoTime() + 5_000_000_000L;
        int status;
        do { // the breaker probes after its cool-down, then uses Redis again
            Thread.sleep(50);
            status = given().get("/api/products").then().extract().statusCode();
        } while (status != 200 && System.nanoTime() < deadline);
        assertTrue(status == 200, "back on Redis");
        assertTrue(value("slidegate_failmode_transitions_total\\{to=\"store\"}") == toStore + 1,
                "one switch back to the store");
    }

    private static double value(String series) {
        Matcher m = Pattern.compile(series + " ([0-9.E]+)").matcher(ObservabilityTest.metrics());
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }
}
