package dev.slidegate.it;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.matchesPattern;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.slidegate.testing.AdminCredentials;
import dev.slidegate.testing.RedisTestResource;
import dev.slidegate.testing.Resp;
import io.quarkus.test.junit.QuarkusIntegrationTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/**
 * The packaged artifact (the jar in {@code verify}, the native executable with {@code -Dnative}) on a
 * real redis-server started by the test: the Lua scripts are found as resources and decide, the
 * sliding log lives in Redis, and readiness reports Redis.
 */
@QuarkusIntegrationTest
@TestProfile(RedisStoreIT.OnRedis.class)
class RedisStoreIT {

    public static class OnRedis implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("slidegate.store", "redis", "slidegate.policies.products.limits", "5/1m");
        }

        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(RedisTestResource.class));
        }
    }

    @Test
    void decisionsAreMadeInRedis() {
        for (int i = 0; i < 5; i++) {
            given().get("/api/products").then().statusCode(200).header("RateLimit",
                    matchesPattern("\"products-1m\";r=" + (4 - i) + ";t=\\d+"));
        }
        given().get("/api/products").then().statusCode(429).header("Retry-After", matchesPattern("[1-9][0-9]*"))
                .contentType("application/problem+json").body("policy", equalTo("products"));
        try (Resp r = RedisTestResource.server().connect()) {
            List<String> keys = r.scan("slidegate:{products:*}:log");
            assertEquals(1, keys.size(), "one sliding log for the one caller: " + keys);
            assertEquals(5L, r.call("ZCOUNT", keys.get(0), "(0", "+inf"));
        }
        given().get("/q/health/ready").then().statusCode(200).body("checks.find { it.name == 'Slidegate store' }.data.redis",
                equalTo("up"));
    }

    // overrides in the packaged artifact: kept in Redis (the JSON written and read back), applied at once,
    // every strategy's script carrying the window over (reports is a fixed window)
    @Test
    void overridesAreKeptInRedisAndApplied() {
        String k = "it-" + java.util.UUID.randomUUID();
        given().header("X-Api-Key", k).get("/api/reports").then().statusCode(200);
        AdminCredentials.admin().contentType("application/json")
                .body("{\"limits\": [\"1/1h\"], \"reason\": \"it\"}")
                .put("/admin/policies/reports/keys/hdr:" + k + "/override").then().statusCode(200)
                .body("limits[0]", equalTo("1/1h"));
        given().header("X-Api-Key", k).get("/api/reports").then().statusCode(429)
                .header("RateLimit-Policy", "\"reports-1h\";q=1;w=3600");
        try (Resp r = RedisTestResource.server().connect()) {
            assertEquals(1L, r.call("HLEN", "slidegate:overrides"));
        }
        AdminCredentials.admin().get("/admin/overrides").then().statusCode(200)
                .body("source", equalTo("redis")).body("overrides[0].reason", equalTo("it"));
        AdminCredentials.admin()
                .delete("/admin/policies/reports/keys/hdr:" + k + "/override")
                .then().statusCode(204);
        given().header("X-Api-Key", k).get("/api/reports").then().statusCode(200);
    }
}
