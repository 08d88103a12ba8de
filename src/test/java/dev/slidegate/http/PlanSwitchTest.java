package dev.slidegate.http;

import static io.restassured.RestAssured.given;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * A custom PlanResolver bean replaces the shipped one; a caller whose plan changes gets the new
 * plan's limits at once (each plan has windows of its own).
 */
@QuarkusTest
@TestProfile(ServiceChoicesTest.LibraryDefaults.class) // its plan settings and resolver are this class's
class PlanSwitchTest {

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
