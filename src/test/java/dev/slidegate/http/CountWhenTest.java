package dev.slidegate.http;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.UUID;

import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * {@code count-when}: a policy counts only the calls whose outcome is one it names, judged where the protected code sees
 * it (the endpoint's and the bean's own counts of what they answered). A call is admitted against its cost and charged
 * or refunded when its outcome is known; a caller who leaves before the answer is counted.
 */
@QuarkusTest
@TestProfile(dev.slidegate.http.SharedProfiles.Demo.class) // the demo as it ships (and Envoy's rate-limit service)
class CountWhenTest {

    /**
     * Waits until the store counts {@code used} permits for the user: a success gives its permit back when its settlement
     * reaches the store, after its answer (on Redis a script call of its own), and a call racing it sees the permit still
     * taken (docs/strategies.md). Observed through the admin's view of the key, never assumed after a sleep.
     */
    static void awaitUsed(String policy, String key, long used) {
        dev.slidegate.testing.Eventually.eventually(Duration.ofSeconds(5),
                () -> dev.slidegate.testing.AdminCredentials.admin().get("/admin/policies/" + policy + "/keys/" + key)
                        .then().statusCode(200).extract().jsonPath().getLong("limits[0].used"),
                u -> u == used, policy + " counting " + used + " for " + key);
    }

    private static int login(String user, String password, boolean thrown) {
        return given().header("X-User", user).queryParam("password", password).queryParam("throw", thrown)
                .get("/test/count-when/login").statusCode();
    }

    // failed-logins: 3/1h per user, counting 401 and 403: successes never spend the budget, failures do (whether the
    // endpoint answered 401 itself or threw for the exception mapper to answer it)
    @Test
    void aLoginCountsOnlyItsFailedAttempts() {
        String user = "u-" + UUID.randomUUID();
        int failedBefore = CountWhenResource.FAILED.get();
        assertEquals(401, login(user, "wrong", false));
        assertEquals(401, login(user, "wrong", true));
        for (int i = 0; i < 10; i++) {
            assertEquals(200, login(user, "right", false), "a success is never refused by failures' budget (" + i + ")");
            awaitUsed("failed-logins", "hdr:" + user, 2); // its permit back
        }
        assertEquals(401, login(user, "wrong", false)); // the third failure in the hour
        assertEquals(429, login(user, "right", false), "three failures counted: the next call is refused");
        assertEquals(3, CountWhenResource.FAILED.get() - failedBefore, "the endpoint answered exactly N failures");
        assertEquals(200, login("other-" + user, "right", false), "another user's budget is its own");
    }

    // a caller who leaves before its answer cannot make the call free: it counts
    @Test
    void aCallerWhoLeavesBeforeTheAnswerIsCounted() throws Exception {
        String user = "u-" + UUID.randomUUID();
        int port = ConfigProvider.getConfig().getValue("quarkus.http.test-port", Integer.class);
        HttpClient client = HttpClient.newHttpClient();
        HttpRequest slow = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                + "/test/count-when/login?password=right&slow=true")).header("X-User", user).timeout(Duration.ofMillis(150))
                .build();
        try {
            HttpResponse<String> r = client.send(slow, HttpResponse.BodyHandlers.ofString());
            throw new AssertionError("the slow answer came within 150 ms: " + r.statusCode());
        } catch (HttpTimeoutException left) {
            // the caller left
        }
        Thread.sleep(800); // the endpoint finishes its answer to nobody
        assertEquals(401, login(user, "wrong", false));
        assertEquals(401, login(user, "wrong", false));
        assertEquals(429, login(user, "right", false), "the call the caller left counted with the two failures");
    }

    // upstream-failures: a bean method's calls (2/1h), counting 5xx and IllegalStateException: a REST client's answer of
    // 503 (a WebApplicationException) and an IllegalStateException count, a 404 and a success do not
    @Test
    void aBeanMethodCountsOnlyTheFailuresItNames() {
        int ranBefore = CountWhenResource.Upstream.RAN.get();
        for (String fail : new String[] { "", "404", "", "404" }) {
            given().queryParam("fail", fail).get("/test/count-when/upstream").then().statusCode(200);
        }
        assertEquals("failed: WebApplicationException",
                given().queryParam("fail", "503").get("/test/count-when/upstream").asString());
        assertEquals("failed: IllegalStateException",
                given().queryParam("fail", "state").get("/test/count-when/upstream").asString());
        assertEquals("failed: RateLimitExceededException", given().get("/test/count-when/upstream").asString(),
                "two failures counted: the next call is refused");
        assertEquals(6, CountWhenResource.Upstream.RAN.get() - ranBefore, "the bean ran every call but the refused one");
    }
}
