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
        for (String name : new String[] { "llm", "llm-refund", "llm-header", "llm-prompt", "llm-argument", "llm-burst",
                "llm-month" }) {
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

    // the endpoint says what it used in a response header (usage-header): decided before dispatch, or by the interceptor
    // (an estimate from the request), which returns before the response is written: both settle with the header. A
    // value that is no usage (not a number, negative, beyond 2^40, absent) keeps the estimate
    @Test
    void theResponseHeaderCanReportTheUsage() {
        given().get("/test/settled/header?said=12").then().statusCode(200).header("X-Tokens-Used", "12")
                .header("RateLimit", containsString("\"llm-header-1h\";r=900;"));
        eventuallyLeft("llm-header", CALLER, 988);
        given().get("/test/settled/header-estimate?max-tokens=300&said=8").then().statusCode(200)
                .header("RateLimit", containsString("\"llm-header-1h\";r=688;"));
        eventuallyLeft("llm-header", CALLER, 980);
        for (String said : new String[] { "lots", "-3", "99999999999999", "" }) {
            given().get("/test/settled/header?said=" + said).then().statusCode(200);
        }
        given().get("/test/settled/header").then().statusCode(200);
        eventuallyLeft("llm-header", CALLER, 980 - 5 * 100);
    }

    // the estimate from a CostResolver bean (cost-resolver): one that reads the request alone decides before dispatch
    // (a 40-character prompt: 10 + 50 = 60, settled at 25); one that needs the arguments is asked by the interceptor
    @Test
    void theEstimateCanComeFromAResolverBean() {
        given().get("/test/settled/prompt?prompt=" + "p".repeat(40) + "&used=25").then().statusCode(200)
                .header("RateLimit", containsString("\"llm-prompt-1h\";r=940;"));
        eventuallyLeft("llm-prompt", CALLER, 975);
        given().get("/test/settled/argument?max=250").then().statusCode(200)
                .header("RateLimit", containsString("\"llm-argument-1h\";r=750;"));
        given().get("/test/settled/argument?max=0").then().statusCode(200) // below 1 costs 1
                .header("RateLimit", containsString("\"llm-argument-1h\";r=749;"));
        given().get("/test/settled/argument?max=800").then().statusCode(429);
    }

    @Inject
    dev.slidegate.api.RateLimiter limiter;

    // code that is not annotated settles what it acquired: admitted against 100, settled at 30, then at 400 (over); the
    // next acquisitions see it. A refused decision settles nothing; a policy that does not settle says so
    @Test
    void theRateLimiterSettlesWhatItAcquired() {
        String tenant = "tenant-" + System.nanoTime();
        dev.slidegate.api.Decision first = limiter.acquireBlocking("llm", tenant, 100);
        assertEquals(900, first.remaining());
        limiter.settle(first, tenant, 100, 30).toCompletableFuture().join();
        dev.slidegate.api.Decision second = limiter.acquireBlocking("llm", tenant, 100);
        assertEquals(870, second.remaining(), "30 charged for the first, 100 for this one");
        limiter.settle(second, tenant, 100, 400).toCompletableFuture().join();
        dev.slidegate.api.Decision refused = limiter.acquireBlocking("llm", tenant, 600);
        assertTrue(!refused.allowed(), "570 left, not 600: " + refused);
        limiter.settle(refused, tenant, 600, 0).toCompletableFuture().join();
        assertEquals(569, limiter.acquireBlocking("llm", tenant, 1).remaining(), "the refusal refunded nothing");
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> limiter.settle(limiter.acquireBlocking("observed", tenant, 1), tenant, 1, 0));
        assertTrue(e.getMessage().contains("slidegate.policies.observed.settle=true"), e.getMessage());
        e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> limiter.settle(first, tenant, 100, -1));
        assertTrue(e.getMessage().contains("not from 100 to -1"), e.getMessage());
    }

    // a sliding burst beside a monthly budget: two policies on one method, both settled. A call the month refuses was not
    // run: what the burst had charged it comes back, so the burst counts only the calls that ran
    @Test
    void aCallALaterPolicyRefusesIsRefundedOnTheEarlierOnes() {
        given().get("/test/settled/burst-and-month?used=100").then().statusCode(200);
        given().get("/test/settled/burst-and-month?used=100").then().statusCode(200);
        given().get("/test/settled/burst-and-month?used=100").then().statusCode(429)
                .body("detail", containsString("allows 250 tokens per month"));
        eventuallyLeft("llm-month", CALLER, 50);
        eventuallyLeft("llm-burst", CALLER, 800);
    }
}
