package dev.slidegate.http;

import static io.restassured.RestAssured.given;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * A custom PlanResolver bean replaces the shipped one; a caller whose plan changes gets the new
 * plan's limits at once (each plan has windows of its own).
 */
@QuarkusTest
@TestProfile(PlanSwitchTest.Switching.class)
class PlanSwitchTest {

    public static class Switching extends SmallLimits {
        @Override
        public Map<String, String> getConfigOverrides() {
            return plus("quarkus.arc.selected-alternatives", HeaderPlans.class.getName(),
                    "slidegate.policies.reports.plans.free.limits", "2/1h",
                    "slidegate.policies.reports.plans.pro.limits", "4/1h",
                    "slidegate.policies.reports.default-plan", "free");
        }
    }

    @Test
    void upgradingFromFreeToProLiftsTheLimit() {
        String key = "switcher";
        given().header("X-Api-Key", key).get("/api/reports").then().statusCode(200)
                .header("RateLimit-Policy", "\"reports.free-1h\";q=2;w=3600"); // no plan: the default plan
        given().header("X-Api-Key", key).header("X-Plan", "free").get("/api/reports").then().statusCode(200);
        given().header("X-Api-Key", key).header("X-Plan", "free").get("/api/reports").then().statusCode(429);
        given().header("X-Api-Key", key).header("X-Plan", "gold").get("/api/reports").then().statusCode(429); // unknown plan: default
        given().header("X-Api-Key", key).header("X-Plan", "pro").get("/api/reports").then().statusCode(200)
                .header("RateLimit-Policy", "\"reports.pro-1h\";q=4;w=3600")
                .header("RateLimit", org.hamcrest.Matchers.startsWith("\"reports.pro-1h\";r=3;"));
    }
}
