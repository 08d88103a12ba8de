package dev.slidegate.http;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;

import jakarta.inject.Inject;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.slidegate.api.Policy;
import dev.slidegate.config.PolicyCatalog;
import dev.slidegate.config.StoreStack;
import dev.slidegate.testing.Eventually;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * Issue 41: calls admitted against an estimate (cost 100 tokens of 1000/1h) and settled with the usage their code
 * reported, judged where the endpoint sees it: what it reported decides what the next calls are admitted for.
 */
@QuarkusTest
@TestProfile(SharedProfiles.PathsDryRunNoAdmin.class)
class SettledCallsTest {

    private static final String CALLER = "ip:127.0.0.1";

    @Inject
    StoreStack stack;
    @Inject
    PolicyCatalog registry;

    @BeforeEach
    void reset() {
        for (String name : new String[] { "llm", "llm-refund" }) {
            stack.inspection().reset(policy(name), CALLER).toCompletableFuture().join();
        }
        stack.inspection().reset(policy("llm-bean"), "global").toCompletableFuture().join();
    }

    private Policy policy(String name) {
        return registry.policies().get(name).policy();
    }

    /** What the store holds for the key now (permits left), once the settlement after the response has landed. */
    private long eventuallyLeft(String name, String key, long expected) {
        return Eventually.eventually(Duration.ofSeconds(5),
                () -> stack.inspection().peek(policy(name), key).toCompletableFuture().join().remaining(),
                left -> left == expected, name + " settled to " + expected + " left");
    }

    // admitted against 100, used 30: the 70 come back at once; used 950: the next call (100) no longer fits
    @Test
    void aCallIsChargedWhatItReportedNotItsEstimate() {
        given().get("/test/settled/blocking?used=30").then().statusCode(200)
                .header("RateLimit", containsString("\"llm-1h\";r=900;")); // the estimate, as admitted
        eventuallyLeft("llm", CALLER, 970);
        given().get("/test/settled/blocking?used=900").then().statusCode(200)
                .header("RateLimit", containsString("\"llm-1h\";r=870;"));
        eventuallyLeft("llm", CALLER, 70);
        given().get("/test/settled/blocking?used=0").then().statusCode(429)
                .body("detail", containsString("allows 1000 tokens per 1h"));
    }

    // a larger usage is charged in full: the key goes over its limit, and stays refused
    @Test
    void anOverageIsChargedInFull() {
        given().get("/test/settled/blocking?used=2500").then().statusCode(200);
        eventuallyLeft("llm", CALLER, 0);
        given().get("/test/settled/blocking?used=1").then().statusCode(429);
    }

    // a streamed response is settled when the stream ends, with what its chunks added
    @Test
    void aStreamIsSettledWhenItEnds() {
        String body = given().get("/test/settled/stream?chunks=6&each=7").then().statusCode(200).extract().asString();
        assertEquals(6, body.lines().count(), body);
        eventuallyLeft("llm", CALLER, 1000 - 42);
    }

    // a caller that cuts a stream short pays what was streamed until then: the tokens the code reported, not nothing
    // (the stream's cancellation is a failure, and llm charges a failed call what it reported)
    @Test
    void aStreamCutShortIsChargedWhatItStreamed() throws Exception {
        java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
        java.net.http.HttpResponse<java.io.InputStream> r = http.send(java.net.http.HttpRequest
                .newBuilder(java.net.URI.create("http://localhost:" + io.restassured.RestAssured.port
                        + "/test/settled/stream?chunks=400&each=1"))
                .build(), java.net.http.HttpResponse.BodyHandlers.ofInputStream());
        try (java.io.BufferedReader lines = new java.io.BufferedReader(new java.io.InputStreamReader(r.body()))) {
            for (int i = 0; i < 3; i++) {
                assertEquals("chunk " + i, lines.readLine());
            }
        } // the connection is closed with the stream still running
        long left = Eventually.eventually(Duration.ofSeconds(5),
                () -> stack.inspection().peek(policy("llm"), CALLER).toCompletableFuture().join().remaining(),
                l -> l > 900, "settled below the estimate");
        assertTrue(left <= 997, "charged at least the 3 tokens read: " + (1000 - left));
    }

    // the estimate from the request (@RateLimitCost on max-tokens): admitted against 300, settled at 20; a caller asking
    // for 0 or less is admitted against 1 (never free before it ran), none asked for is the policy's 100, and one asking
    // for more than the limit can never be admitted (429, nothing charged)
    @Test
    void theEstimateCanComeFromTheRequest() {
        given().get("/test/settled/estimate?max-tokens=300&used=20").then().statusCode(200)
                .header("RateLimit", containsString("\"llm-1h\";r=700;"));
        eventuallyLeft("llm", CALLER, 980);
        given().get("/test/settled/estimate?max-tokens=-5&used=0").then().statusCode(200)
                .header("RateLimit", containsString("\"llm-1h\";r=979;"));
        eventuallyLeft("llm", CALLER, 980);
        given().get("/test/settled/estimate?used=0").then().statusCode(200)
                .header("RateLimit", containsString("\"llm-1h\";r=880;"));
        given().get("/test/settled/estimate?max-tokens=5000&used=0").then().statusCode(429)
                .body("detail", containsString("This call costs 5000 tokens, more than policy 'llm' grants"));
        eventuallyLeft("llm", CALLER, 980);
    }

    // the result itself says what the call used (ReportsUsage): a Uni's item, a Multi's items added up, a stage's value
    @Test
    void theResultCanReportTheUsage() {
        given().get("/test/settled/uni-report?used=40").then().statusCode(200).body(containsString("\"tokens\":40"));
        eventuallyLeft("llm", CALLER, 960);
        given().get("/test/settled/multi-report?chunks=5&each=6").then().statusCode(200);
        eventuallyLeft("llm", CALLER, 930);
        given().get("/test/settled/stage-report?used=15").then().statusCode(200).body(containsString("later 15"));
        eventuallyLeft("llm-bean", "global", 985);
    }

    // a call that reports nothing keeps its estimate; one that failed after reporting is charged what it reported
    @Test
    void aCallWithoutAReportKeepsItsEstimate() {
        given().get("/test/settled/blocking?used=-1").then().statusCode(200);
        given().get("/test/settled/blocking?used=10&fail=true").then().statusCode(500);
        eventuallyLeft("llm", CALLER, 1000 - 100 - 10);
    }

    // with refund-failures, a failed call that reported nothing is refunded; a successful one keeps its estimate
    @Test
    void aFailedCallIsRefundedWhenThePolicySaysSo() {
        given().get("/test/settled/refund?fail=true").then().statusCode(500);
        eventuallyLeft("llm-refund", CALLER, 1000);
        given().get("/test/settled/refund").then().statusCode(200);
        eventuallyLeft("llm-refund", CALLER, 900);
    }

    // a bean method decided by the interceptor during the request finds the request's Usage too
    @Test
    void aBeanMethodIsSettledWithTheRequestsUsage() {
        given().get("/test/settled/bean?used=5").then().statusCode(200).body(containsString("completed 5"));
        eventuallyLeft("llm-bean", "global", 995);
    }
}
