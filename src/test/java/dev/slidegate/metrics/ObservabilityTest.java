package dev.slidegate.metrics;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import dev.slidegate.http.SmallLimits;
import dev.slidegate.testing.LogCapture;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** Metrics, health, OpenAPI and the refusal log summary, on the memory store. */
@QuarkusTest
@TestProfile(SmallLimits.class)
public class ObservabilityTest {

    // decisions are counted by policy and outcome; the histogram has the store; no caller key becomes a label
    @Test
    void metricsCountDecisionsByPolicyAndOutcome() {
        double admitted = counter("reports", "admitted");
        double refused = counter("reports", "refused");
        String apiKey = "metrics-" + UUID.randomUUID();
        for (int i = 0; i < 5; i++) { // limit 3/1h: 3 admitted, 2 refused
            given().header("X-Api-Key", apiKey).get("/api/reports");
        }
        assertEquals(admitted + 3, counter("reports", "admitted"));
        assertEquals(refused + 2, counter("reports", "refused"));
        String metrics = metrics();
        assertTrue(metrics.contains("slidegate_decision_latency_seconds_bucket{store=\"memory\""),
                "latency histogram by store");
        assertTrue(!metrics.contains(apiKey), "a caller key never becomes a label");
    }

    @Test
    void healthIsUpWithTheMemoryStore() {
        given().get("/q/health/ready").then().statusCode(200).body("status", equalTo("UP"))
                .body("checks.find { it.name == 'Slidegate store' }.data.store", equalTo("memory"));
        given().get("/q/health/live").then().statusCode(200).body("status", equalTo("UP"));
    }

    // every limited operation documents its 429 with the problem body and the RateLimit/Retry-After fields
    @Test
    void openApiDescribesThe429() {
        var api = given().accept("application/json").get("/q/openapi?format=json").then().statusCode(200).extract().jsonPath();
        for (String op : List.of("'/api/products'.get", "'/api/products/{id}'.get", "'/api/reports'.get",
                "'/api/login'.post")) {
            assertEquals("#/components/responses/TooManyRequests", api.getString("paths." + op + ".responses.'429'.$ref"), op);
        }
        // the service's own filter (mp.openapi.filter, SmallLimits) ran, and did not replace Slidegate's
        assertEquals("applied", api.getString("x-service-filter"));
        var tooMany = "components.responses.TooManyRequests.";
        assertEquals("#/components/headers/RateLimit", api.getString(tooMany + "headers.RateLimit.$ref"));
        assertEquals("#/components/headers/Retry-After", api.getString(tooMany + "headers.Retry-After.$ref"));
        assertEquals("#/components/schemas/Problem", api.getString(tooMany + "content.'application/problem+json'.schema.$ref"));
        assertTrue(api.getMap("components.schemas.Problem.properties").keySet()
                .containsAll(List.of("title", "status", "retryAfter", "policy")));
        // the admin API is served beside the service's REST application, not in it: the service's document stays its own
        assertTrue(api.<String, Object> getMap("paths").keySet().stream().noneMatch(p -> p.startsWith("/admin")),
                api.getMap("paths").keySet()
                        .toString());
    }

    // refusals are summarised, not logged per request: 6 refusals of one policy give one line, at once for the
    // policy's first refusal, naming the policy and its limit and no key (the policy 'observed' is this test's alone)
    @Test
    void refusalsAreLoggedAsASummary() {
        String apiKey = "secret-key-" + UUID.randomUUID();
        double refusedBefore = counter("observed", "refused");
        try (LogCapture log = LogCapture.of("dev.slidegate.refused")) {
            for (int i = 0; i < 9; i++) {
                given().header("X-Api-Key", apiKey).get("/test/observed");
            }
            // the summary's timing itself is tested on a settable clock (SummaryLogTest)
            assertEquals(refusedBefore + 6, counter("observed", "refused"));
            List<String> lines = log.lines().stream().filter(m -> m.contains("'observed'")).toList();
            assertEquals(1, lines.size(), "one summary line for the policy's first refusals: " + lines);
            assertTrue(lines.get(0).contains("refused 1 call(s)") && lines.get(0).contains("3/1h"), lines.get(0));
            lines.forEach(l -> assertTrue(!l.contains(apiKey), "no caller key in " + l));
            assertTrue(!log.anyAtLeast(java.util.logging.Level.WARNING), "not WARN: " + log.lines());
        }
    }

    public static String metrics() {
        return given().get("/q/metrics").then().statusCode(200).body(not(containsString("caller-key"))).extract().asString();
    }

    public static double counter(String policy, String outcome) {
        Matcher m = Pattern
                .compile("slidegate_decisions_total\\{outcome=\"" + outcome + "\",policy=\"" + Pattern.quote(policy)
                        + "\"} ([0-9.E]+)")
                .matcher(metrics());
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }
}
