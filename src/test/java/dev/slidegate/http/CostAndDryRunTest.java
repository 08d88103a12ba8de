package dev.slidegate.http;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import jakarta.inject.Inject;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.slidegate.config.PolicyCatalog;
import dev.slidegate.config.StoreStack;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** Calls that weigh several permits, calls that can never fit, and policies that only report. */
@QuarkusTest
@TestProfile(SharedProfiles.PathsDryRunNoAdmin.class)
class CostAndDryRunTest {

    @Inject
    StoreStack stack;
    @Inject
    PolicyCatalog registry;

    @BeforeEach
    void reset() {
        registry.policies().values()
                .forEach(r -> stack.inspection().reset(r.policy(), "ip:127.0.0.1").toCompletableFuture().join());
    }

    // 10/1h at cost 5: two calls, then refused; the fields count permits, not calls
    @Test
    void aCostlyCallTakesSeveralPermits() {
        given().get("/test/export").then().statusCode(200).header("RateLimit", "\"export-1h\";r=5;t=3600");
        given().get("/test/export").then().statusCode(200).header("RateLimit", "\"export-1h\";r=0;t=3600");
        given().get("/test/export").then().statusCode(429);
    }

    // 3/1h at cost 5: refused at once, saying it can never be admitted; nothing is charged
    @Test
    void aCallCostingMoreThanTheLimitIsRefusedWithAClearMessage() {
        for (int i = 0; i < 3; i++) {
            given().get("/test/huge").then().statusCode(429).contentType("application/problem+json")
                    .body("detail", equalTo(
                            "This call costs 5 permits, more than policy 'huge' grants in 3/1h; it can never be admitted."))
                    .header("RateLimit", "\"huge-1h\";r=3;t=0");
        }
    }

    // a policy counting tokens says so: the draft's qu in RateLimit-Policy, the unit in the problem's text, and what the
    // admitted calls were charged in slidegate_charged_total{unit="tokens"}
    @Test
    void aPolicyCountingTokensSaysSoWhereverItsLimitsAre() {
        given().get("/test/completion").then().statusCode(200)
                .header("RateLimit-Policy", "\"completions-1h\";q=100;w=3600;qu=\"slidegate-tokens\"")
                .header("RateLimit", "\"completions-1h\";r=60;t=3600");
        given().get("/test/completion").then().statusCode(200).header("RateLimit", "\"completions-1h\";r=20;t=3600");
        given().get("/test/completion").then().statusCode(429).contentType("application/problem+json")
                .header("RateLimit-Policy", "\"completions-1h\";q=100;w=3600;qu=\"slidegate-tokens\"")
                .body("detail", containsString("Policy 'completions' allows 100 tokens per 1h per caller"));
        given().get("/q/metrics").then().statusCode(200)
                .body(containsString("slidegate_charged_total{policy=\"completions\",unit=\"tokens\"} 80.0"));
        given().get("/test/export").then().header("RateLimit-Policy", "\"export-1h\";q=10;w=3600"); // requests: no qu
    }

    // dry-run: never refuses, but the fields say r=0 once the limit is reached
    @Test
    void aDryRunPolicyNeverRefusesButReports() {
        given().get("/test/trial").then().statusCode(200).header("RateLimit", "\"trial-1h\";r=1;t=3600");
        given().get("/test/trial").then().statusCode(200).header("RateLimit", "\"trial-1h\";r=0;t=3600");
        for (int i = 0; i < 5; i++) {
            given().get("/test/trial").then().statusCode(200).body(equalTo("trial")).header("RateLimit", containsString("r=0"));
        }
    }

    @Test
    void configurationCanPutAPolicyInDryRun() {
        for (int i = 0; i < 5; i++) { // reports is 3/1h in SmallLimits
            given().header("X-Api-Key", "dry").get("/api/reports").then().statusCode(200);
        }
        given().header("X-Api-Key", "dry").get("/api/reports").then().header("RateLimit", containsString("r=0"));
    }
}
