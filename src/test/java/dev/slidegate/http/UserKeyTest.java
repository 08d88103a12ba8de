package dev.slidegate.http;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;

import jakarta.inject.Inject;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.slidegate.api.Policy;
import dev.slidegate.config.PolicyCatalog;
import dev.slidegate.config.StoreStack;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** {@code key = "user"}: authenticated callers are counted by principal, anonymous ones by address. */
@QuarkusTest
@TestProfile(SmallLimits.class)
class UserKeyTest {

    @Inject
    StoreStack stack;
    @Inject
    PolicyCatalog registry;

    private Policy policy() {
        return registry.policies().get("per-user").policy();
    }

    @BeforeEach
    void reset() {
        for (String key : new String[] { "user:viewer", "ip:127.0.0.1" }) {
            stack.inspection().reset(policy(), key).toCompletableFuture().join();
        }
    }

    private long remaining(String key) {
        return stack.decisions().acquire(policy(), key, 1).toCompletableFuture().join().remaining();
    }

    // signed in with HTTP basic as the test profile's user (application.properties, %test)
    @Test
    void anAuthenticatedCallerIsCountedByName() {
        given().auth().preemptive().basic("viewer", "viewer-secret").get("/test/user").then().statusCode(200);
        given().auth().preemptive().basic("viewer", "viewer-secret").get("/test/user").then().statusCode(200);
        given().auth().preemptive().basic("viewer", "viewer-secret").get("/test/user").then().statusCode(429);
        assertEquals(1, remaining("ip:127.0.0.1"), "the address was not charged");
    }

    @Test
    void anAnonymousCallerIsCountedByAddress() {
        given().get("/test/user").then().statusCode(200);
        assertEquals(1, remaining("user:viewer"), "no user was charged");
        assertEquals(0, remaining("ip:127.0.0.1"));
    }
}
