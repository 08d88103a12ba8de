package dev.slidegate.it;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.matchesPattern;

import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import dev.slidegate.testing.AdminCredentials;
import io.quarkus.test.junit.QuarkusIntegrationTest;

/**
 * The demo API against the packaged artifact: the jar in {@code verify}, the native executable with
 * {@code -Dnative}. Each test uses its own API key or a generous limit, so the order does not matter.
 */
@QuarkusIntegrationTest
class DemoApiIT {

    @Test
    void productsCarryTheRateLimitFieldsOfAllThreeLimits() {
        given().get("/api/products").then().statusCode(200).body("$", hasSize(4))
                .header("RateLimit-Policy",
                        "\"products-2s\";q=500;w=2, \"products-10s\";q=2000;w=10, \"products-1m\";q=10000;w=60")
                .header("RateLimit", matchesPattern(
                        "\"products-2s\";r=\\d+;t=\\d+, \"products-10s\";r=\\d+;t=\\d+, \"products-1m\";r=\\d+;t=\\d+"));
        given().get("/api/products/reactive").then().statusCode(200).body("$", hasSize(4));
    }

    @Test
    void reportsAreLimitedPerApiKeyWithAProblemBody() {
        given().get("/api/reports").then().statusCode(400).contentType("application/problem+json");
        String key = UUID.randomUUID().toString();
        for (int i = 0; i < 100; i++) {
            given().header("X-Api-Key", key).get("/api/reports").then().statusCode(200);
        }
        given().header("X-Api-Key", key).get("/api/reports").then().statusCode(429)
                .contentType("application/problem+json")
                .header("Retry-After", matchesPattern("[1-9][0-9]*"))
                .body("policy", equalTo("reports")).body("limit", equalTo("100/1h"))
                .body("detail", containsString("retry in"));
    }

    // calls in flight (issue 40), packaged: 2 archives of one API key run, a third is refused in the draft's concurrency
    // form while they do, the admin shows them running, and once they end their slots are free again
    @Test
    void archivesRunTwoAtOnceAndGiveTheirSlotsBack() throws Exception {
        String key = UUID.randomUUID().toString();
        java.util.concurrent.ExecutorService clients = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            List<java.util.concurrent.Future<Integer>> running = new java.util.ArrayList<>();
            for (int i = 0; i < 2; i++) {
                running.add(clients.submit(() -> given().header("X-Api-Key", key).get("/api/reports/archive?seconds=3")
                        .statusCode()));
            }
            dev.slidegate.testing.Eventually.eventually(java.time.Duration.ofSeconds(10),
                    () -> AdminCredentials.admin().accept("application/json").get("/admin/policies/archives/keys/hdr:" + key)
                            .then().extract().path("limits[0].used"),
                    used -> Integer.valueOf(2).equals(used), "2 archives running");
            given().header("X-Api-Key", key).get("/api/reports/archive?seconds=1").then().statusCode(429)
                    .contentType("application/problem+json").header("Retry-After", "1")
                    .header("RateLimit-Policy", "\"archives\";q=2;qu=\"concurrent-requests\"")
                    .header("RateLimit", "\"archives\";r=0;t=1")
                    .body("type", containsString("#quota-exceeded"))
                    .body("violated-policies", org.hamcrest.Matchers.contains("archives"))
                    .body("limit", equalTo("2 in flight"));
            for (java.util.concurrent.Future<Integer> f : running) {
                org.junit.jupiter.api.Assertions.assertEquals(200, f.get(20, java.util.concurrent.TimeUnit.SECONDS));
            }
            dev.slidegate.testing.Eventually.eventually(java.time.Duration.ofSeconds(10),
                    () -> given().header("X-Api-Key", key).get("/api/reports/archive?seconds=0.1").statusCode(),
                    status -> status == 200, "a slot free once the archives ended");
        } finally {
            clients.shutdownNow();
        }
    }

    // issue 41: the demo's completions, admitted against the max-tokens they ask for (a CostResolver bean) and charged
    // the tokens they streamed (Usage) or their JSON answer reports (ReportsUsage); probes the model never sees (400,
    // refunded) show the month to date
    @Test
    void completionsAreChargedTheTokensTheyUsed() {
        String key = "llm-" + UUID.randomUUID();
        String streamed = given().header("X-Api-Key", key).get("/api/completions?prompt=hello&max-tokens=30&delay-ms=0")
                .then().statusCode(200).header("RateLimit", containsString("\"completion-tokens-1m\";r=19970;"))
                .extract().asString();
        io.restassured.response.Response whole = given().header("X-Api-Key", key)
                .get("/api/completions/whole?prompt=why&max-tokens=40");
        whole.then().statusCode(200).contentType("application/json");
        long tokens = streamed.lines().count() + whole.jsonPath().getInt("tokens");
        String settled = "\"completion-tokens-month\";r=" + (1000000 - tokens - 1) + ";";
        dev.slidegate.testing.Eventually.eventually(java.time.Duration.ofSeconds(5),
                () -> given().header("X-Api-Key", key).get("/api/completions?prompt=hello&max-tokens=0").then()
                        .statusCode(400).extract().header("RateLimit"),
                field -> field.contains(settled), "settled at the " + tokens + " tokens the answers used");
    }

    // issue 60: the demo's chat endpoint, admitted against the estimate its request gives (cost-resolver=llm-request) and
    // settled with the usage its answer reports (usage-from=answer); a request the model never sees (400) is refunded and
    // shows the month to date: what the answer said
    @Test
    void chatsAreChargedTheUsageTheirAnswersReport() {
        String key = "chat-" + UUID.randomUUID();
        String request = "{\"messages\":[{\"role\":\"user\",\"content\":\"how are limits kept exact\"}],\"max_tokens\":50}";
        long estimate = (request.length() + 3) / 4 + 50;
        io.restassured.response.Response first = given().header("X-Api-Key", key).contentType("application/json")
                .body(request).post("/api/chat");
        first.then().statusCode(200).contentType("application/json")
                .header("RateLimit", containsString("\"chat-tokens-month\";r=" + (1000000 - estimate) + ";"))
                .body("usage.prompt_tokens", equalTo(5));
        long used = first.jsonPath().getLong("usage.total_tokens");
        String settled = "\"chat-tokens-month\";r=" + (1000000 - used - ((2 + 3) / 4 + 1024)) + ";";
        dev.slidegate.testing.Eventually.eventually(java.time.Duration.ofSeconds(5),
                () -> given().header("X-Api-Key", key).contentType("application/json").body("{}").post("/api/chat").then()
                        .statusCode(400).contentType("application/problem+json").extract().header("RateLimit"),
                field -> field.contains(settled), "settled at the " + used + " tokens the answer reported");
        given().contentType("application/json").body(request).post("/api/chat").then().statusCode(400); // no API key
    }

    // the same chat streamed (Accept: text/event-stream): read as it passes, settled with the usage of its last chunk
    @Test
    void aStreamedChatIsChargedTheUsageOfItsLastChunk() {
        String key = "chat-" + UUID.randomUUID();
        String request = "{\"messages\":[{\"role\":\"user\",\"content\":\"stream it\"}],\"max_tokens\":30}";
        String events = given().header("X-Api-Key", key).contentType("application/json").accept("text/event-stream")
                .body(request).post("/api/chat").then().statusCode(200)
                .header("RateLimit", org.hamcrest.Matchers.containsString("\"chat-tokens-month\";r=")).extract().asString();
        List<String> data = events.lines().filter(l -> l.startsWith("data:")).toList();
        java.util.regex.Matcher total = java.util.regex.Pattern.compile("\"total_tokens\":(\\d+)")
                .matcher(data.get(data.size() - 1));
        org.junit.jupiter.api.Assertions.assertTrue(total.find(), "the last chunk says the usage: " + events);
        long used = Long.parseLong(total.group(1));
        org.junit.jupiter.api.Assertions.assertEquals(used, data.size() - 1 + 2, "a chunk per token, and the 2 prompt tokens");
        String settled = "\"chat-tokens-month\";r=" + (1000000 - used - ((2 + 3) / 4 + 1024)) + ";";
        dev.slidegate.testing.Eventually.eventually(java.time.Duration.ofSeconds(5),
                () -> given().header("X-Api-Key", key).contentType("application/json").body("{}").post("/api/chat").then()
                        .statusCode(400).extract().header("RateLimit"),
                field -> field.contains(settled), "settled at the " + used + " tokens the stream reported");
    }

    @Test
    void theAdminNeedsItsUser() {
        given().get("/admin").then().statusCode(401);
        given().auth().preemptive().basic("admin", "wrong").get("/admin").then().statusCode(401);
        AdminCredentials.admin().accept("application/json").get("/admin").then()
                .statusCode(200)
                .body("store", equalTo("memory")).body("policies.name", org.hamcrest.Matchers.hasItem("products"));
        AdminCredentials.admin().accept("text/html").get("/admin").then().statusCode(200)
                .contentType(containsString("text/html"));
        // the page's script and style sheet, read from the class path (native resources too), behind the same user
        given().get("/admin/admin.js").then().statusCode(401);
        AdminCredentials.admin().get("/admin/admin.js").then().statusCode(200)
                .contentType(containsString("text/javascript")).body(containsString("function segment("));
        AdminCredentials.admin().get("/admin/admin.css").then().statusCode(200)
                .contentType(containsString("text/css"));
    }

    @Test
    void metricsHealthAndOpenApiAreServed() {
        given().header("X-Api-Key", UUID.randomUUID().toString()).get("/api/reports").then().statusCode(200);
        given().get("/q/metrics").then().statusCode(200)
                .body(containsString("slidegate_decisions_total{outcome=\"admitted\",policy=\"reports\"}"));
        given().get("/q/health/ready").then().statusCode(200).body("status", equalTo("UP"));
        given().get("/q/health/live").then().statusCode(200).body("status", equalTo("UP"));
        given().accept("application/json").get("/q/openapi?format=json").then().statusCode(200)
                .body("paths.'/api/products'.get.responses.'429'.$ref", equalTo("#/components/responses/TooManyRequests"));
    }

    // overrides in the packaged artifact, memory store: a plan's new limits, a key's block with its
    // Retry-After, bad input refused with a problem body, and the listing
    @Test
    void overridesOfAPlanAndAKeyApplyAndBadInputIsRefused() {
        io.restassured.specification.RequestSpecification admin = AdminCredentials.admin();
        String k = UUID.randomUUID().toString();
        try {
            admin.contentType("application/json").body("{\"limits\": [\"20000/1h\"], \"expiresIn\": 3600}")
                    .put("/admin/policies/reports/plans/pro/override")
                    .then().statusCode(200).body("plan", equalTo("pro"));
            given().header("X-Api-Key", "demo-pro-key").get("/api/reports").then().statusCode(200)
                    .header("RateLimit-Policy", "\"reports.pro-1h\";q=20000;w=3600");
            AdminCredentials.admin().contentType("application/json")
                    .body("{\"block\": true, \"expiresIn\": 120}")
                    .put("/admin/policies/reports/keys/hdr:" + k + "/override").then().statusCode(200);
            given().header("X-Api-Key", k).get("/api/reports").then().statusCode(429)
                    .header("Retry-After", matchesPattern("1[12][0-9]"));
            AdminCredentials.admin().contentType("application/json")
                    .body("{\"limits\": [\"3/x\"]}")
                    .put("/admin/policies/reports/override").then().statusCode(400).contentType("application/problem+json");
            AdminCredentials.admin().get("/admin/overrides").then().statusCode(200)
                    .body("overrides", hasSize(2)).body("source", equalTo("memory"));
        } finally {
            AdminCredentials.admin().delete("/admin/policies/reports/plans/pro/override");
            AdminCredentials.admin()
                    .delete("/admin/policies/reports/keys/hdr:" + k + "/override");
        }
        given().header("X-Api-Key", k).get("/api/reports").then().statusCode(200);
    }
}
