package dev.slidegate.http;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.nullValue;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/** {@code slidegate.enabled=false}, the operators' switch: nothing is limited and no RateLimit fields are sent. */
@QuarkusTest
@TestProfile(DisabledTest.Off.class)
class DisabledTest {

    public static class Off implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("slidegate.enabled", "false", "slidegate.policies.products.limits", "1/1h",
                    SmallLimits.NO_OPENAPI_SCAN, "true");
        }
    }

    @Test
    void everythingPassesWithoutFields() {
        for (int i = 0; i < 5; i++) {
            given().get("/api/products").then().statusCode(200).header("RateLimit", nullValue()).header("RateLimit-Policy",
                    nullValue());
        }
        given().get("/api/reports").then().statusCode(200);
    }
}
