package dev.slidegate.http;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;

import jakarta.inject.Inject;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.slidegate.config.PolicyCatalog;
import dev.slidegate.config.StoreStack;
import dev.slidegate.testing.AdminCredentials;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * Annotated endpoints whose keys come from the request are decided by a request filter before the
 * endpoint is dispatched; the others by the interceptor. Both count each call exactly once.
 */
@QuarkusTest
@TestProfile(SmallLimits.class)
class EarlyDecisionsTest {

    @Inject
    StoreStack stack;
    @Inject
    PolicyCatalog registry;

    @BeforeEach
    void reset() {
        for (String name : new String[] { "early-json", "early-blocking", "early-outer", "early-secured", "early-two-ip" }) {
            stack.inspection().reset(registry.policies().get(name).policy(), "ip:127.0.0.1").toCompletableFuture().join();
        }
        for (String id : new String[] { "a", "b" }) {
            stack.inspection().reset(registry.policies().get("early-arg").policy(), "arg:" + id).toCompletableFuture().join();
        }
        stack.inspection().reset(registry.policies().get("early-inner").policy(), "global").toCompletableFuture().join();
        EarlyResource.JSON_CALLS.set(0);
        EarlyResource.BLOCKING_CALLS.set(0);
    }

    // the refusal comes before the body is read: a malformed body over the limit is a 429, not a 400
    @Test
    void aRefusedRequestIsAnsweredBeforeItsBodyIsRead() {
        for (int i = 0; i < 2; i++) {
            given().contentType("application/json").body("{\"item\":\"cup\",\"quantity\":1}").post("/test/early/json").then()
                    .statusCode(200)
                    .body(equalTo("cup"));
        }
        given().contentType("application/json").body("{not json").post("/test/early/json").then().statusCode(429)
                .header("Retry-After", "3600").contentType("application/problem+json").body("policy", equalTo("early-json"));
        assertEquals(2, EarlyResource.JSON_CALLS.get());
    }

    // decided by the filter, let through by the interceptor: one permit per call, no more
    @Test
    void anAdmittedRequestIsCountedOnce() {
        for (int remaining = 2; remaining >= 0; remaining--) {
            given().get("/test/early/blocking").then().statusCode(200).header("RateLimit",
                    "\"early-blocking-1h\";r=" + remaining + ";t=3600");
        }
        given().get("/test/early/blocking").then().statusCode(429).header("RateLimit", "\"early-blocking-1h\";r=0;t=3600");
        assertEquals(3, EarlyResource.BLOCKING_CALLS.get());
    }

    // slidegate.http.fixed-problem-writer (on by default): the refusal's body is written by RESTEasy's byte-array writer
    // chosen once, not looked up among the service's writers (its own writer of problem bodies would win the lookup); the
    // service's response filters still see the 429, and one that replaces the body is obeyed
    @Test
    void aRefusalSkipsTheWriterLookupAndStillPassesTheServicesResponseFilters() {
        for (int i = 0; i < 3; i++) {
            given().get("/test/early/blocking").then().statusCode(200);
        }
        RefusalProviders.claim = true;
        try {
            given().header("X-Stamp", "1").get("/test/early/blocking").then().statusCode(429)
                    .header("X-Seen-Status", "429").contentType("application/problem+json")
                    .body("policy", equalTo("early-blocking")).body("written-by", nullValue());
            given().header("X-Replace", "1").get("/test/early/blocking").then().statusCode(429)
                    .contentType("text/plain").body(equalTo("replaced by the service"));
        } finally {
            RefusalProviders.claim = false;
        }
        // alike refusals share one response (RefusalBodies): a filter that replaced one answer changed no later one, and
        // no field is written twice
        for (int i = 0; i < 3; i++) {
            io.restassured.response.Response again = given().get("/test/early/blocking");
            assertEquals(429, again.statusCode());
            assertEquals("application/problem+json;charset=UTF-8", again.contentType());
            assertEquals("early-blocking", again.jsonPath().getString("policy"));
            for (String field : new String[] { "Retry-After", "Content-Type", "RateLimit", "RateLimit-Policy" }) {
                assertEquals(1, again.headers().getList(field).size(), field + " in " + again.headers());
            }
        }
        assertEquals(3, EarlyResource.BLOCKING_CALLS.get());
    }

    // a key from the call's argument cannot be known before the call: the interceptor decides it
    @Test
    void aKeyFromAnArgumentIsStillDecidedPerArgument() {
        given().get("/test/early/arg/a").then().statusCode(200);
        given().get("/test/early/arg/a").then().statusCode(429).body("policy", equalTo("early-arg"));
        given().get("/test/early/arg/b").then().statusCode(200);
    }

    // the endpoint's own policy is decided early; the bean it calls keeps its own limit
    @Test
    void aLimitedBeanCalledByAnEarlyDecidedEndpointIsStillLimited() {
        given().get("/test/early/nested").then().statusCode(200).body(equalTo("inner"));
        given().get("/test/early/nested").then().statusCode(429).body("policy", equalTo("early-inner"));
        given().get("/test/early/nested").then().statusCode(429).header("RateLimit",
                org.hamcrest.Matchers.containsString("\"early-outer-1h\";r=2"));
    }

    // every policy's key is found before any is charged: a request refused for a missing key costs the first policy nothing
    @Test
    void aMissingKeyOfALaterPolicyChargesNoEarlierOne() {
        for (int i = 0; i < 3; i++) {
            given().get("/test/early/two").then().statusCode(400).body("policy", equalTo("early-two-tenant"));
        }
        given().header("X-Tenant", "t-" + System.nanoTime()).get("/test/early/two").then().statusCode(200)
                .header("RateLimit", org.hamcrest.Matchers.containsString("\"early-two-ip-1h\";r=1;t=3600"));
    }

    // security comes first: a caller who may not call the endpoint is turned away without spending a permit
    @Test
    void aCallerRefusedBySecurityDoesNotSpendThePermit() {
        given().get("/test/early/secured").then().statusCode(401);
        given().auth().basic("viewer", "viewer-secret").get("/test/early/secured").then().statusCode(403);
        given().auth().basic(AdminCredentials.USER, AdminCredentials.PASSWORD).get("/test/early/secured").then().statusCode(200)
                .header("RateLimit", "\"early-secured-1h\";r=0;t=3600");
        given().auth().basic(AdminCredentials.USER, AdminCredentials.PASSWORD).get("/test/early/secured").then()
                .statusCode(429);
    }
}
