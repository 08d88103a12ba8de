package dev.slidegate.http;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItems;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.UUID;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import dev.slidegate.testing.AdminCredentials;
import io.restassured.response.Response;

/**
 * The demo API over HTTP, as a client sees it, with {@link SmallLimits}: products 3/10m and 5/1h by
 * address, reports 3/1h by API key, login 5/1m counting refused attempts. Subclasses run it on each
 * store and reset the windows before each test.
 */
public abstract class DemoApiContract {

    /** An RFC 9651 list of strings with integer parameters, as the RateLimit fields are. */
    static final Pattern SF_LIST = Pattern.compile("\"[a-z0-9._#-]+\"(;[a-z]+=\\d+)+(, \"[a-z0-9._#-]+\"(;[a-z]+=\\d+)+)*");

    static Response products(String path) {
        return given().when().get("/api/products" + path);
    }

    @Test
    void productsAreAdmittedUpToTheLimitWithRateLimitFields() {
        for (int remaining = 2; remaining >= 0; remaining--) {
            products("").then().statusCode(200)
                    .header("RateLimit-Policy", "\"products-10m\";q=3;w=600, \"products-1h\";q=5;w=3600")
                    .header("RateLimit",
                            "\"products-10m\";r=" + remaining + ";t=600, \"products-1h\";r=" + (remaining + 2) + ";t=3600")
                    .body("$", hasSize(4));
        }
    }

    // issue 41, the demo's LLM endpoint: admitted against an estimate, the max-tokens it asks for (a CostResolver bean),
    // settled with the tokens it streamed (the oracle: the lines of the answer); a request the model never saw
    // (max-tokens=0, a 400) is refunded, so such probes show where the key stands once the completion was settled
    @Test
    void aCompletionIsChargedTheTokensItStreamedNotItsEstimate() {
        String key = "llm-" + System.nanoTime();
        String body = given().header("X-Api-Key", key).get("/api/completions?prompt=hello&max-tokens=30").then()
                .statusCode(200).header("RateLimit", containsString("\"completion-tokens-1m\";r=19970;"))
                .header("RateLimit-Policy", containsString("\"completion-tokens-1m\";q=20000;w=60;qu=\"slidegate-tokens\", "
                        + "\"completion-tokens-month\";q=1000000;qu=\"slidegate-tokens\"")) // a calendar month has no one length
                .extract().asString();
        long tokens = body.lines().count();
        org.junit.jupiter.api.Assertions.assertTrue(tokens >= 1 && tokens <= 30, body);
        assertSettledAt(key, tokens);
    }

    // the whole completion in one JSON answer says what it used (ReportsUsage): the tokens it lists are charged
    @Test
    void aWholeCompletionIsChargedTheTokensItsAnswerReports() {
        String key = "llm-" + System.nanoTime();
        Response r = given().header("X-Api-Key", key).get("/api/completions/whole?prompt=why&max-tokens=40");
        r.then().statusCode(200).contentType("application/json")
                .header("RateLimit", containsString("\"completion-tokens-1m\";r=19960;"));
        int tokens = r.jsonPath().getInt("tokens");
        org.junit.jupiter.api.Assertions.assertEquals(tokens, r.jsonPath().getString("text").split(" ").length,
                r.asString());
        given().header("X-Api-Key", key).get("/api/completions/whole?max-tokens=40").then().statusCode(400)
                .contentType("application/problem+json");
        assertSettledAt(key, tokens);
    }

    /** The month of {@code key} eventually holds {@code tokens}: probes the model never sees (400, refunded) show it. */
    private void assertSettledAt(String key, long tokens) {
        String settled = "\"completion-tokens-month\";r=" + (1000000 - tokens - 1) + ";"; // (the minute may turn)
        dev.slidegate.testing.Eventually.eventually(java.time.Duration.ofSeconds(5),
                () -> given().header("X-Api-Key", key).get("/api/completions?prompt=hello&max-tokens=0").then()
                        .statusCode(400).extract().header("RateLimit"),
                field -> field.contains(settled), "the completion settled at " + tokens + " tokens");
    }

    @Test
    void theCallBeyondTheLimitGets429WithRetryAfterAndAProblemBody() {
        for (int i = 0; i < 3; i++) {
            products("").then().statusCode(200);
        }
        Response refused = products("");
        refused.then().statusCode(429)
                .contentType("application/problem+json")
                .header("Retry-After", matchesPattern("[1-9][0-9]*"))
                .header("RateLimit-Policy", matchesPattern(SF_LIST))
                .header("RateLimit", containsString("\"products-10m\";r=0;t="))
                .body("type", equalTo("https://iana.org/assignments/http-problem-types#quota-exceeded"))
                .body("title", equalTo("Too Many Requests"))
                .body("status", equalTo(429))
                .body("policy", equalTo("products"))
                .body("limit", equalTo("3/10m"))
                .body("detail", containsString("retry in"));
        long retryAfter = Long.parseLong(refused.header("Retry-After"));
        assertTrue(retryAfter >= 1 && retryAfter <= 600, "Retry-After " + retryAfter);
        assertEquals(retryAfter, refused.jsonPath().getLong("retryAfter"));
    }

    @Test
    void everyProductEndpointSharesOneWindowIncludingTheReactiveOne() {
        products("/1").then().statusCode(200).body("name", equalTo("Espresso cup"));
        products("/reactive").then().statusCode(200).body("$", hasSize(4))
                .header("RateLimit", containsString("\"products-10m\";r=1;"));
        products("/99").then().statusCode(404).contentType("application/problem+json")
                .header("RateLimit", containsString("\"products-10m\";r=0;"));
        products("/reactive").then().statusCode(429).contentType("application/problem+json");
    }

    @Test
    void aForgedForwardedForChangesNothing() {
        for (int i = 0; i < 3; i++) {
            given().header("X-Forwarded-For", "203.0.113." + i).get("/api/products").then().statusCode(200);
        }
        given().header("X-Forwarded-For", "198.51.100.7").get("/api/products").then().statusCode(429);
    }

    @Test
    void aForgedForwardedForChangesNothingOnAKeptAliveConnection() throws java.io.IOException {
        // every request of one connection comes from its peer, whatever each one writes
        StringBuilder requests = new StringBuilder();
        for (int i = 0; i < 4; i++) {
            requests.append("GET /api/products HTTP/1.1\r\nHost: localhost\r\nX-Forwarded-For: 203.0.113.").append(i)
                    .append(i == 3 ? "\r\nConnection: close" : "").append("\r\n\r\n");
        }
        String response = TrustedProxyTest.raw(requests.toString());
        assertEquals(java.util.List.of("200", "200", "200", "429"),
                Pattern.compile("HTTP/1\\.1 (\\d{3}) ").matcher(response).results().map(m -> m.group(1)).toList(), response);
    }

    @Test
    void reportsNeedAnApiKeyAndCountPerKey() {
        given().get("/api/reports").then().statusCode(400).contentType("application/problem+json")
                .body("detail", containsString("X-Api-Key header is required")).header("RateLimit", nullValue());
        String key = UUID.randomUUID().toString();
        for (int remaining = 2; remaining >= 0; remaining--) {
            given().header("X-Api-Key", key).get("/api/reports").then().statusCode(200)
                    .header("RateLimit-Policy", "\"reports-1h\";q=3;w=3600")
                    .header("RateLimit", matchesPattern("\"reports-1h\";r=" + remaining + ";t=\\d+"));
        }
        given().header("X-Api-Key", key).get("/api/reports").then().statusCode(429).body("policy", equalTo("reports"));
        given().header("X-Api-Key", key + "-other").get("/api/reports").then().statusCode(200);
        // a key with braces or of any length is a key like any other (hashed for the store)
        given().header("X-Api-Key", "{evil}" + "x".repeat(500)).get("/api/reports").then().statusCode(200);
    }

    @Test
    void loginRefusesAfterFiveFailedAttemptsAMinuteEvenWithTheRightPassword() {
        for (int i = 0; i < 5; i++) {
            login("alice", "guess" + i).then().statusCode(401).contentType("application/problem+json");
        }
        login("alice", "guess").then().statusCode(429).body("policy", equalTo("login"));
        login("alice", "wonderland").then().statusCode(429);
    }

    // count-when=401: successful logins give their permit back, so they never lock out the failures' budget, and the
    // login's own count of the failures it answered reaches exactly 5 before the refusal
    @Test
    void loginCountsOnlyFailedAttempts() {
        int failures = 0;
        for (int round = 0; round < 4; round++) {
            login("bob", "guess").then().statusCode(401);
            failures++;
            for (int i = 0; i < 3; i++) {
                login("bob", "builder").then().statusCode(200);
                CountWhenTest.awaitUsed("login", "ip:127.0.0.1", failures); // its permit back once its settlement landed
            }
        }
        login("bob", "guess").then().statusCode(401);
        failures++;
        assertEquals(5, failures);
        login("bob", "builder").then().statusCode(429).body("policy", equalTo("login"));
    }

    @Test
    void loginWithTheRightPasswordSucceeds() {
        login("alice", "wonderland").then().statusCode(200).body("user", equalTo("alice"))
                .header("RateLimit", matchesPattern("\"login-1m\";r=4;t=6\\d, \"login-user-15m\";r=9;t=9\\d\\d"));
    }

    @Test
    void loginWithoutABodyIsABadRequest() {
        given().contentType("application/json").body("{}").post("/api/login").then().statusCode(400)
                .contentType("application/problem+json");
    }

    @Test
    void aMalformedBodyIsABadRequestWithAProblemBody() {
        given().contentType("application/json").body("{bad").post("/api/login").then().statusCode(400)
                .contentType("application/problem+json").body("detail", containsString("not valid JSON"));
        given().contentType("application/json").body("[1,2]").post("/api/login").then().statusCode(400)
                .contentType("application/problem+json").body("detail", containsString("not valid JSON"));
    }

    // an override whose window differs from the policy's: a caller who used up 3/1h stays refused under
    // 2/10m (it starts from the 3 counted); a caller counted only under the override is listed; a reset
    // forgets everything a caller is counted in, so the reset caller is admitted at once
    @Test
    void aResetAndTheListingSeeWhatAnOverrideCounts() {
        String used = "ov-" + UUID.randomUUID();
        String fresh = "ov-" + UUID.randomUUID();
        for (int i = 0; i < 3; i++) {
            given().header("X-Api-Key", used).get("/api/reports").then().statusCode(200);
        }
        admin().contentType("application/json").body("{\"limits\": [\"2/10m\"]}").put("/admin/policies/reports/override")
                .then().statusCode(200);
        try {
            given().header("X-Api-Key", used).get("/api/reports").then().statusCode(429)
                    .header("RateLimit-Policy", "\"reports-10m\";q=2;w=600");
            given().header("X-Api-Key", fresh).get("/api/reports").then().statusCode(200);
            given().header("X-Api-Key", fresh).get("/api/reports").then().statusCode(200);
            given().header("X-Api-Key", fresh).get("/api/reports").then().statusCode(429);
            admin().get("/admin/policies/reports/keys?limit=1000").then().statusCode(200)
                    .body("keys.key", hasItems("hdr:" + used, "hdr:" + fresh));
            admin().get("/admin/policies/reports/keys/hdr:" + fresh).then().statusCode(200)
                    .body("limits[0].limit", equalTo("2/10m")).body("limits[0].used", equalTo(2));
            for (String k : new String[] { used, fresh }) {
                admin().delete("/admin/policies/reports/keys/hdr:" + k).then().statusCode(204);
                given().header("X-Api-Key", k).get("/api/reports").then().statusCode(200)
                        .header("RateLimit", matchesPattern("\"reports-10m\";r=1;t=\\d+"));
            }
        } finally {
            admin().delete("/admin/policies/reports/override").then().statusCode(204);
        }
    }

    static io.restassured.specification.RequestSpecification admin() {
        return AdminCredentials.admin();
    }

    static Response login(String user, String password) {
        return given().contentType("application/json").body("{\"username\":\"" + user + "\",\"password\":\"" + password + "\"}")
                .post("/api/login");
    }

    // a key the store cannot hold (braces would choose a Redis Cluster slot) is the operator's bad
    // input: a 400 problem naming it, on every store, never a 500; nothing is reset
    @Test
    void adminRefusesAKeyWithBracesWith400() {
        for (String key : new String[] { "hdr:%7Bslot%7D", "hdr:a*b" }) {
            AdminCredentials.admin().urlEncodingEnabled(false)
                    .get("/admin/policies/reports/keys/" + key)
                    .then().statusCode(400).contentType("application/problem+json")
                    .body("detail", containsString("must not contain"));
            AdminCredentials.admin().urlEncodingEnabled(false)
                    .delete("/admin/policies/reports/keys/" + key)
                    .then().statusCode(400).contentType("application/problem+json");
        }
    }
}
