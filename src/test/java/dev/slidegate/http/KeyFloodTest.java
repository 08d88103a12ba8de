package dev.slidegate.http;

import static io.restassured.RestAssured.given;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * Issue 20's reproduction, from outside (there with 1000 keys and 3000 requests): with
 * {@code slidegate.memory.max-keys=200}, five failed logins lock the address out; 260 requests to
 * {@code /api/reports} with distinct API keys (a key source the caller controls) do not lift that lock,
 * and the flood's new keys beyond the budget share one window.
 */
@QuarkusTest
@TestProfile(SharedProfiles.ForwardingAndKeyBudget.class)
class KeyFloodTest {

    @Test
    void aKeyFloodOnOnePolicyDoesNotLiftAnothersLimit() {
        for (int i = 0; i < 5; i++) {
            given().contentType("application/json").body("{\"username\": \"alice\", \"password\": \"guess\"}")
                    .post("/api/login")
                    .then().statusCode(401);
        }
        given().contentType("application/json").body("{\"username\": \"alice\", \"password\": \"guess\"}").post("/api/login")
                .then().statusCode(429);
        for (int i = 0; i < 200; i++) {
            given().header("X-Api-Key", "flood-" + i).get("/api/reports").then().statusCode(200);
        }
        // past the budget, new keys share the overflow window (1/1h): one admitted, then refused
        given().header("X-Api-Key", "flood-200").get("/api/reports").then().statusCode(200);
        for (int i = 201; i < 260; i++) {
            given().header("X-Api-Key", "flood-" + i).get("/api/reports").then().statusCode(429);
        }
        given().contentType("application/json").body("{\"username\": \"alice\", \"password\": \"wonderland\"}")
                .post("/api/login").then().statusCode(429);
    }
}
