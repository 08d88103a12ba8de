package dev.slidegate.http;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;

import java.util.UUID;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** Plans chosen by API key (the shipped PlanResolver): each caller gets, and is told, its own plan's limits. */
@QuarkusTest
@TestProfile(SharedProfiles.ProxyPlansAndOverrideSource.class)
class PlansTest {

    private static void reports(String apiKey, int status, String policy, String rateLimit) {
        given().header("X-Api-Key", apiKey).get("/api/reports").then().statusCode(status)
                .header("RateLimit-Policy", policy).header("RateLimit", rateLimit);
    }

    @Test
    void aCallerWithoutAPlanGetsThePolicyLimits() {
        String key = UUID.randomUUID().toString();
        for (int r = 2; r >= 0; r--) {
            given().header("X-Api-Key", key).get("/api/reports").then().statusCode(200)
                    .header("RateLimit-Policy", "\"reports-1h\";q=3;w=3600");
        }
        given().header("X-Api-Key", key).get("/api/reports").then().statusCode(429).body("policy", equalTo("reports"));
    }

    @Test
    void proKeysGetTheProPlanAndItsFields() {
        for (int r = 4; r >= 0; r--) {
            given().header("X-Api-Key", "pro-key-1").get("/api/reports").then().statusCode(200)
                    .header("RateLimit-Policy", "\"reports.pro-1h\";q=5;w=3600")
                    .header("RateLimit", org.hamcrest.Matchers.startsWith("\"reports.pro-1h\";r=" + r + ";"));
        }
        given().header("X-Api-Key", "pro-key-1").get("/api/reports").then().statusCode(429)
                .body("policy", equalTo("reports.pro")).body("limit", equalTo("5/1h"));
        // another key on the same plan has its own window
        given().header("X-Api-Key", "pro-key-2").get("/api/reports").then().statusCode(200);
    }

    @Test
    void aPlanWithSeveralLimitsReportsThemAll() {
        given().header("X-Api-Key", "team-key").get("/api/reports").then().statusCode(200)
                .header("RateLimit-Policy", "\"reports.team-1h\";q=4;w=3600, \"reports.team-1d\";q=100;w=86400");
    }
}
