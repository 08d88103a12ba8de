package dev.slidegate.http;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;

import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.slidegate.testing.AdminCredentials;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * Redis unreachable from the start (nothing listens on the port): the service starts, and each
 * policy answers by its fail mode: products open (admitted, no RateLimit fields), reports closed
 * (503 with Retry-After and a problem body), login local (limited in process).
 */
@QuarkusTest
@TestProfile(RedisDownTest.Unreachable.class)
class RedisDownTest {

    public static class Unreachable extends SmallLimits {
        @Override
        public Map<String, String> getConfigOverrides() {
            return plus("slidegate.store", "redis", "quarkus.redis.hosts", "redis://127.0.0.1:1",
                    "slidegate.policies.products.fail-mode", "open", "slidegate.policies.reports.fail-mode", "closed",
                    "slidegate.fail-mode", "local");
        }
    }

    @Test
    void failOpenAdmitsWithoutFields() {
        for (int i = 0; i < 6; i++) { // more than the 3/10m limit: nothing is enforced
            given().get("/api/products").then().statusCode(200).header("RateLimit", nullValue());
        }
    }

    @Test
    void failClosedRefusesWith503() {
        given().header("X-Api-Key", "k").get("/api/reports").then().statusCode(503).contentType("application/problem+json")
                .header("Retry-After", equalTo("1")).body("title", equalTo("Rate limiter unavailable"));
    }

    @Test
    void failLocalKeepsLimitingInProcess() {
        for (int i = 0; i < 5; i++) {
            DemoApiContract.login("carol", "x").then().statusCode(401);
        }
        DemoApiContract.login("carol", "x").then().statusCode(429).header("RateLimit", containsString("\"login-1m\";r=0"));
    }

    // the default fail mode is local: not ready would take every instance out for nothing; ready, degraded
    @Test
    void readyButDegradedWhenTheFailModeIsNotClosed() {
        given().get("/q/health/ready").then().statusCode(200).body("status", equalTo("UP"))
                .body("checks.find { it.name == 'Slidegate store' }.data.redis",
                        org.hamcrest.Matchers.startsWith("unreachable"))
                .body("checks.find { it.name == 'Slidegate store' }.data.degraded", org.hamcrest.Matchers.notNullValue())
                .body("checks.find { it.name == 'Slidegate store' }.data.'policies failing closed'", equalTo("reports"));
    }

    @Test
    void adminSaysTheStoreIsUnavailable() {
        AdminCredentials.admin().get("/admin").then().statusCode(503)
                .contentType("application/problem+json");
    }
}
