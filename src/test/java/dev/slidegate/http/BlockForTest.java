package dev.slidegate.http;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.UUID;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;

/**
 * {@code block-for}: a caller who goes over its limit (2/1s) is blocked for 3 s, judged by the endpoint's own count of its
 * runs and the caller's clock: nothing runs until the block ends although the window frees after 1 s, calls made during
 * the block do not lengthen it, the refusal's Retry-After says when it ends, and another caller is not blocked.
 */
// a regression fails in seconds, never hangs the build
@org.junit.jupiter.api.Timeout(value = 60, unit = java.util.concurrent.TimeUnit.SECONDS)
@QuarkusTest
@TestProfile(dev.slidegate.http.SharedProfiles.Demo.class) // the demo as it ships (and Envoy's rate-limit service)
class BlockForTest {

    private static Response call(String user) {
        return given().header("X-User", user).get("/test/count-when/penalty");
    }

    @Test
    void aCallerOverItsLimitIsBlockedForTheBlockAndNoLonger() throws Exception {
        String user = "u-" + UUID.randomUUID();
        int ranBefore = CountWhenResource.PENALTY_RAN.get();
        assertEquals(200, call(user).statusCode());
        assertEquals(200, call(user).statusCode());
        long breach = System.nanoTime();
        Response refused = call(user);
        long answered = System.nanoTime();
        assertEquals(429, refused.statusCode());
        assertEquals("3", refused.header("Retry-After"), "the refusal says when the block ends: " + refused.asString());
        assertEquals(200, call("other-" + user).statusCode(), "another caller is not blocked");
        int ranAtBreach = CountWhenResource.PENALTY_RAN.get();
        // keep calling through the block: every call refused (the window of 1 s frees long before), none lengthens it
        long firstAdmitted = -1;
        while (firstAdmitted < 0) {
            long sent = System.nanoTime();
            int status = call(user).statusCode();
            if (status == 200) {
                firstAdmitted = sent;
            } else {
                assertEquals(429, status);
                assertTrue(System.nanoTime() - breach < 6_000_000_000L, "still blocked 6 s after a block of 3 s");
                Thread.sleep(150);
            }
        }
        double after = (firstAdmitted - answered) / 1e9;
        assertTrue(firstAdmitted - breach >= 2_900_000_000L, "admitted " + after + " s after the breach, inside the block");
        assertEquals(ranAtBreach + 1, CountWhenResource.PENALTY_RAN.get(),
                "nothing of the blocked caller ran during the block");
        assertEquals(ranBefore + 4, CountWhenResource.PENALTY_RAN.get());
    }

    // block-after=3/3s: two refusals within 3 s block nothing (the window frees and the caller runs again), the third
    // within 3 s of them blocks for 3 s, judged by the endpoint's own runs
    @Test
    void aCallerIsBlockedOnlyAtItsThirdRefusalWithinTheWindowOfBlockAfter() throws Exception {
        String user = "u-" + UUID.randomUUID();
        int ranBefore = CountWhenResource.PATIENT_RAN.get();
        assertEquals(200, patient(user).statusCode());
        assertEquals(200, patient(user).statusCode());
        long first = System.nanoTime();
        for (int i = 0; i < 2; i++) {
            Response refused = patient(user);
            assertEquals(429, refused.statusCode());
            assertEquals("1", refused.header("Retry-After"), "refusal " + (i + 1) + " blocks nothing: " + refused.asString());
        }
        Thread.sleep(1_100); // the window of 1 s frees: the caller runs again, it was not blocked
        assertEquals(200, patient(user).statusCode(), "two refusals within 3 s block nothing");
        assertEquals(200, patient(user).statusCode());
        long breach = System.nanoTime();
        Response third = patient(user);
        long answered = System.nanoTime();
        org.junit.jupiter.api.Assumptions.assumeTrue(answered - first < 3_000_000_000L, "the machine ran too slowly to "
                + "judge: the third refusal came " + (answered - first) / 1e9 + " s after the first, beyond W");
        assertEquals(429, third.statusCode());
        assertEquals("3", third.header("Retry-After"), "the third refusal within 3 s blocks: " + third.asString());
        int ranAtBreach = CountWhenResource.PATIENT_RAN.get();
        // once the window has freed (the block's length, to the microsecond, is the other test's), still refused
        Thread.sleep(1_100);
        Response blocked = patient(user);
        org.junit.jupiter.api.Assumptions.assumeTrue(System.nanoTime() - breach < 3_000_000_000L,
                "the machine ran too slowly to judge: the block had ended");
        assertEquals(429, blocked.statusCode(), "blocked although the window freed: " + blocked.asString());
        assertEquals(ranAtBreach, CountWhenResource.PATIENT_RAN.get(), "nothing of the blocked caller ran meanwhile");
        assertEquals(ranBefore + 4, CountWhenResource.PATIENT_RAN.get());
    }

    private static Response patient(String user) {
        return given().header("X-User", user).get("/test/count-when/patient-penalty");
    }

    // the admin shows how long a key is still blocked, and a reset of the key lifts the block at once
    @Test
    void theAdminShowsABlockAndAResetLiftsIt() {
        String user = "u-" + UUID.randomUUID();
        call(user);
        call(user);
        assertEquals(429, call(user).statusCode());
        String key = "hdr:" + user;
        long blockedMs = dev.slidegate.testing.AdminCredentials.admin().get("/admin/policies/penalty/keys/" + key).then()
                .statusCode(200)
                .extract().jsonPath().getLong("blockedMs");
        assertTrue(blockedMs > 2_000 && blockedMs <= 3_000, "blocked for " + blockedMs + " ms more");
        assertEquals(429, call(user).statusCode());
        dev.slidegate.testing.AdminCredentials.admin().delete("/admin/policies/penalty/keys/" + key).then().statusCode(204);
        assertEquals(200, call(user).statusCode(), "a reset lifts the block");
        assertEquals(0,
                dev.slidegate.testing.AdminCredentials.admin().get("/admin/policies/penalty/keys/" + key).then().statusCode(200)
                        .extract().jsonPath().getLong("blockedMs"));
    }
}
