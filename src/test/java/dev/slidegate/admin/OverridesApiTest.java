package dev.slidegate.admin;

import static dev.slidegate.admin.AdminApiTest.admin;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.slidegate.api.Decision;
import dev.slidegate.api.RateLimiter;
import dev.slidegate.http.SmallLimits;
import dev.slidegate.testing.AdminCredentials;
import dev.slidegate.testing.LogCapture;
import dev.slidegate.testing.SettableClock;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * Overrides through the admin API on the memory store, with a settable clock: block, exemption, new
 * limits for a key, a plan and a policy (lowered and raised mid-window, never resetting it), expiry,
 * every kind of bad input (refused, nothing changed), security, the change log, and the programmatic
 * limiter and a path policy deciding under them too.
 */
@QuarkusTest
@TestProfile(OverridesApiTest.Profile.class)
class OverridesApiTest {

    public static class Profile extends SmallLimits {
        @Override
        public Map<String, String> getConfigOverrides() {
            return plus("quarkus.arc.selected-alternatives", SettableClock.class.getName(),
                    "slidegate.overrides.max", "5",
                    "slidegate.policies.paths.limits", "2/1h",
                    "slidegate.policies.paths.key", "header:X-Tenant",
                    "slidegate.policies.paths.paths", "/test/plain/*",
                    "slidegate.policies.trial.limits", "1/1h",
                    "slidegate.policies.trial.dry-run", "true",
                    "slidegate.policies.trial.key", "header:X-Tenant",
                    "slidegate.policies.trial.paths", "/test/plain/both/*");
        }
    }

    @Inject
    RateLimiter limiter;

    @Inject
    dev.slidegate.entry.LimitedService service;

    @AfterEach
    void removeAll() {
        List<Map<String, Object>> all = admin().get("/admin/overrides").jsonPath().getList("overrides");
        for (Map<String, Object> o : all) {
            String path = "/admin/policies/" + o.get("policy")
                    + (o.get("plan") != null ? "/plans/" + o.get("plan") : o.get("key") != null ? "/keys/" + o.get("key") : "")
                    + "/override";
            admin().delete(path).then().statusCode(204);
        }
    }

    private static String apiKey() {
        return "o-" + UUID.randomUUID();
    }

    // a blocked key is refused with Retry-After = the time left, others are not; it ends on time
    @Test
    void aBlockRefusesOneKeyUntilItExpires() {
        String k = apiKey();
        admin().body("{\"block\": true, \"expiresIn\": 600, \"reason\": \"scraping\"}")
                .put("/admin/policies/reports/keys/hdr:" + k + "/override").then().statusCode(200)
                .body("block", equalTo(true)).body("expiresIn", equalTo(600)).body("reason", equalTo("scraping"))
                .body("setBy", equalTo("admin")).body("key", equalTo("hdr:" + k));
        given().header("X-Api-Key", k).get("/api/reports").then().statusCode(429).header("Retry-After", "600")
                .contentType("application/problem+json");
        given().header("X-Api-Key", apiKey()).get("/api/reports").then().statusCode(200);
        admin().get("/admin/overrides").then().body("source", equalTo("memory")).body("overrides", hasSize(1))
                .body("overrides[0].key", equalTo("hdr:" + k));
        SettableClock.CLOCK.advance(Duration.ofSeconds(599));
        given().header("X-Api-Key", k).get("/api/reports").then().statusCode(429).header("Retry-After", "1");
        SettableClock.CLOCK.advance(Duration.ofSeconds(1));
        given().header("X-Api-Key", k).get("/api/reports").then().statusCode(200);
        admin().get("/admin/overrides").then().body("overrides", hasSize(0));
        admin().get("/admin/policies/reports/keys/hdr:" + k + "/override").then().statusCode(404);
    }

    // 3/1h: two calls; lowered to 2 the next is refused against them; raised to 10 it is admitted with
    // the two still counted; removed, the configured 3 applies to the three recorded
    @Test
    void newLimitsForAKeyApplyAtOnceWithoutResettingItsWindow() {
        String k = apiKey();
        String override = "/admin/policies/reports/keys/hdr:" + k + "/override";
        given().header("X-Api-Key", k).get("/api/reports").then().statusCode(200);
        given().header("X-Api-Key", k).get("/api/reports").then().statusCode(200);
        admin().body("{\"limits\": [\"2/1h\"]}").put(override).then().statusCode(200).body("limits", equalTo(List.of("2/1h")))
                .body("expiresAt", nullValue());
        given().header("X-Api-Key", k).get("/api/reports").then().statusCode(429)
                .header("RateLimit-Policy", "\"reports-1h\";q=2;w=3600");
        admin().body("{\"limits\": [\"10/1h\"]}").put(override).then().statusCode(200);
        given().header("X-Api-Key", k).get("/api/reports").then().statusCode(200)
                .header("RateLimit", containsString(";r=7;"));
        admin().get("/admin/policies/reports/keys/hdr:" + k).then().body("limits[0].limit", equalTo("10/1h"))
                .body("limits[0].used", equalTo(3));
        admin().delete(override).then().statusCode(204);
        given().header("X-Api-Key", k).get("/api/reports").then().statusCode(429)
                .header("RateLimit-Policy", "\"reports-1h\";q=3;w=3600");
    }

    // an exempt key is never refused, and its calls are still counted
    @Test
    void anExemptKeyIsNeverRefusedAndStillCounted() {
        String k = apiKey();
        for (int i = 0; i < 3; i++) {
            given().header("X-Api-Key", k).get("/api/reports").then().statusCode(200);
        }
        given().header("X-Api-Key", k).get("/api/reports").then().statusCode(429);
        long admitted = admin().get("/admin").jsonPath().getLong("policies.find { it.name == 'reports' }.admitted");
        admin().body("{\"exempt\": true}").put("/admin/policies/reports/keys/hdr:" + k + "/override").then().statusCode(200);
        for (int i = 0; i < 3; i++) {
            given().header("X-Api-Key", k).get("/api/reports").then().statusCode(200);
        }
        assertEquals(admitted + 3, admin().get("/admin").jsonPath().getLong("policies.find { it.name == 'reports' }.admitted"));
        admin().get("/admin/policies/reports/keys/hdr:" + k).then().body("limits[0].used", equalTo(3));
    }

    // a plan's override applies to its callers only; a policy's to every caller; a key's beats both
    @Test
    void planPolicyAndKeyOverridesApplyMostSpecificFirst() {
        admin().body("{\"limits\": [\"1/1h\"]}").put("/admin/policies/reports/plans/pro/override").then().statusCode(200)
                .body("plan", equalTo("pro"));
        given().header("X-Api-Key", "demo-pro-key").get("/api/reports").then().statusCode(200);
        given().header("X-Api-Key", "demo-pro-key").get("/api/reports").then().statusCode(429)
                .header("RateLimit-Policy", "\"reports.pro-1h\";q=1;w=3600");
        String k = apiKey();
        given().header("X-Api-Key", k).get("/api/reports").then().statusCode(200);
        admin().body("{\"block\": true}").put("/admin/policies/reports/override").then().statusCode(200);
        given().header("X-Api-Key", k).get("/api/reports").then().statusCode(429);
        given().header("X-Api-Key", "demo-pro-key").get("/api/reports").then().statusCode(429);
        admin().body("{\"exempt\": true}").put("/admin/policies/reports/keys/hdr:" + k + "/override").then().statusCode(200);
        given().header("X-Api-Key", k).get("/api/reports").then().statusCode(200);
        admin().get("/admin/overrides").then().body("overrides", hasSize(3));
    }

    // the programmatic limiter and a policy attached by path decide under overrides too
    @Test
    void theProgrammaticLimiterAndPathPoliciesApplyOverrides() {
        String tenant = "t-" + UUID.randomUUID();
        assertTrue(limiter.acquireBlocking("reports", tenant).allowed());
        String key = admin().get("/admin/policies/reports/keys?limit=1000").jsonPath()
                .getString("keys.find { it.key.contains('" + tenant + "') }.key");
        admin().body("{\"block\": true, \"expiresIn\": 60}").put("/admin/policies/reports/keys/" + key + "/override").then()
                .statusCode(200);
        Decision blocked = limiter.acquireBlocking("reports", tenant);
        assertFalse(blocked.allowed());
        assertEquals(60, blocked.retryAfterSeconds());

        given().header("X-Tenant", "p1").get("/test/plain/1").then().statusCode(200);
        admin().body("{\"limits\": [\"1/1h\"]}").put("/admin/policies/paths/override").then().statusCode(200);
        given().header("X-Tenant", "p1").get("/test/plain/1").then().statusCode(429);
        given().header("X-Tenant", "p2").get("/test/plain/1").then().statusCode(200);
        given().header("X-Tenant", "p2").get("/test/plain/1").then().statusCode(429);
    }

    // the interceptor on a CDI bean that is not an endpoint: a tenant's key override raises its limit,
    // leaving another tenant at the annotation's 2/1h
    @Test
    void theInterceptorOnABeanAppliesOverrides() {
        String tenant = "bt-" + UUID.randomUUID();
        service.send(tenant, "1");
        service.send(tenant, "2");
        org.junit.jupiter.api.Assertions.assertThrows(dev.slidegate.api.RateLimitExceededException.class,
                () -> service.send(tenant, "3"));
        String key = admin().get("/admin/policies/bean-tenant/keys?limit=1000").jsonPath()
                .getString("keys.find { it.key.contains('" + tenant + "') }.key");
        admin().body("{\"limits\": [\"3/1h\"]}").put("/admin/policies/bean-tenant/keys/" + key + "/override").then()
                .statusCode(200);
        assertEquals(tenant + ":3", service.send(tenant, "3"));
        org.junit.jupiter.api.Assertions.assertThrows(dev.slidegate.api.RateLimitExceededException.class,
                () -> service.send(tenant, "4"));
    }

    // a policy in dry-run only reports its refusals; an operator's block on it is enforced
    @Test
    void aBlockIsEnforcedEvenOnAPolicyInDryRun() {
        given().header("X-Tenant", "d1").get("/test/plain/both/1").then().statusCode(200);
        given().header("X-Tenant", "d1").get("/test/plain/both/1").then().statusCode(200); // over 1/1h, dry-run
        admin().body("{\"block\": true, \"expiresIn\": 30}").put("/admin/policies/trial/keys/hdr:d1/override").then()
                .statusCode(200);
        given().header("X-Tenant", "d1").get("/test/plain/both/1").then().statusCode(429).header("Retry-After", "30");
        given().header("X-Tenant", "d2").get("/test/plain/both/1").then().statusCode(200);
    }

    // every kind of bad input is a problem body naming what is wrong, and nothing changes
    @Test
    void badInputIsRefusedAndChangesNothing() {
        String key = "/admin/policies/reports/keys/hdr:x/override";
        admin().body("{\"block\": true}").put("/admin/policies/nope/override").then().statusCode(404)
                .contentType("application/problem+json").body("detail", containsString("no policy 'nope'"));
        admin().body("{\"block\": true}").put("/admin/policies/reports/plans/gold/override").then().statusCode(404)
                .body("detail", containsString("no plan 'gold'"));
        admin().body("{\"block\": true}").put("/admin/policies/products/plans/pro/override").then().statusCode(404)
                .body("detail", containsString("no plans"));
        Map<String, String> bad = Map.ofEntries(
                Map.entry("{\"limits\": [\"3/x\"]}", "is not a limit"),
                Map.entry("{\"limits\": []}", "limits is empty"),
                Map.entry("{\"limits\": [\"3/1m\", \"4/1m\"]}", "two limits with the window 1m"),
                Map.entry("{\"limits\": [\"3/1m\"], \"block\": true}", "exactly one of"),
                Map.entry("{}", "exactly one of"),
                Map.entry("{\"block\": true, \"expiresIn\": 0}", "is not an expiry"),
                Map.entry("{\"block\": true, \"expiresIn\": \"600\"}", "is not an expiry"),
                Map.entry("{\"block\": true, \"expiresAt\": \"2020-01-01T00:00:00Z\"}", "is in the past"),
                Map.entry("{\"block\": true, \"expiresAt\": \"tomorrow\"}", "is not an instant"),
                Map.entry("{\"block\": true, \"expiresin\": 60}", "'expiresin' is not a member"),
                Map.entry("{\"block\": \"yes\"}", "wrong type"),
                Map.entry("{\"block\": true, \"reason\": \"" + "r".repeat(501) + "\"}", "at most 500 characters"),
                Map.entry("[1]", "not a JSON object"),
                Map.entry("block", "not a JSON object"),
                Map.entry("", "The body is empty"),
                // a member named twice is not "the last one wins": this one set an exemption
                Map.entry("{\"block\": true, \"block\": false, \"exempt\": true}", "names a member twice"),
                Map.entry("{\"block\": true, \"expiresIn\": null}", "expiresIn is null"),
                Map.entry("{\"block\": true, \"reason\": null}", "reason is null"),
                Map.entry("{\"block\": true, \"reason\": \"ok \u202egnp.exe\"}", "format characters"),
                Map.entry("{\"block\": true, \"reason\": \"one\u2028INFO forged line\"}", "line separators"));
        bad.forEach((body, says) -> admin().body(body).put(key).then().statusCode(400)
                .contentType("application/problem+json").body("detail", containsString(says)));
        admin().body("{\"block\": true}").put("/admin/policies/reports/keys/" + "k".repeat(201) + "/override").then()
                .statusCode(400).body("detail", containsString("1 to 200 characters"));
        admin().urlEncodingEnabled(false).body("{\"block\": true}").put("/admin/policies/reports/keys/a%7Bb%7D/override").then()
                .statusCode(400);
        admin().urlEncodingEnabled(false).body("{\"block\": true}").put("/admin/policies/reports/keys/a%0Ab/override").then()
                .statusCode(400)
                .body("detail", containsString("control characters"));
        // only JSON: a text or form body (which a browser sends cross-origin without asking) changes nothing
        for (String type : new String[] { "text/plain", "application/x-www-form-urlencoded", "application/xml" }) {
            AdminCredentials.admin().contentType(type).body("{\"block\": true}")
                    .put(key).then().statusCode(415).contentType("application/problem+json")
                    .body("detail", containsString("Content-Type: application/json"));
        }
        admin().delete(key).then().statusCode(404);
        admin().get("/admin/overrides").then().statusCode(200).body("overrides", hasSize(0));
        given().header("X-Api-Key", "x").get("/api/reports").then().statusCode(200);
    }

    // an override names a key a caller of its policy can have: one in no form Slidegate makes, or of a kind the
    // policy's key source never makes, is refused; a value as the caller sends it is translated into the key it is
    // counted under, and the answer names that key (reports counts by X-Api-Key, products by address)
    @Test
    void anOverrideNamesAKeyACallerCanHave() {
        String block = "{\"block\": true, \"expiresIn\": 600}";
        admin().body(block).put("/admin/policies/reports/keys/hdr:/override").then().statusCode(400)
                .body("detail", containsString("a key names a value after its kind"));
        for (String key : new String[] { "abuser-key", "ip:203.0.113.7", "user:bob", "global" }) {
            admin().body(block).put("/admin/policies/reports/keys/" + key + "/override").then().statusCode(400)
                    .contentType("application/problem+json").body("detail", containsString("hdr:<X-Api-Key value>"));
        }
        admin().body(block).put("/admin/policies/products/keys/ip:no-address/override").then().statusCode(400)
                .body("detail", containsString("is not an IP address"));
        // a header value with a space is hashed for the store: the override lands on the hashed key
        String raw = "bad key " + UUID.randomUUID();
        String stored = admin().body(block).put("/admin/policies/reports/keys/hdr:" + raw + "/override").then()
                .statusCode(200).extract().path("key");
        assertTrue(stored.matches("hdr:#[A-Za-z0-9_-]{43}"), stored);
        given().header("X-Api-Key", raw).get("/api/reports").then().statusCode(429);
        given().header("X-Api-Key", "good-" + UUID.randomUUID()).get("/api/reports").then().statusCode(200);
        admin().get("/admin/policies/reports/keys/hdr:" + raw + "/override").then().statusCode(200).body("key",
                equalTo(stored));
        admin().get("/admin/overrides").then().body("overrides.key", org.hamcrest.Matchers.hasItem(stored));
        admin().delete("/admin/policies/reports/keys/hdr:" + raw + "/override").then().statusCode(204);
        given().header("X-Api-Key", raw).get("/api/reports").then().statusCode(200);
        // any spelling of an address is the key its caller is counted under: here this test's own 127.0.0.1
        admin().body(block).put("/admin/policies/products/keys/ip:::ffff:7f00:1/override").then().statusCode(200)
                .body("key", equalTo("ip:127.0.0.1"));
        given().get("/api/products").then().statusCode(429);
    }

    // a key holding '/' is written %2F: keys/hdr:abc/override is the override of hdr:abc, keys/hdr:abc%2Foverride the
    // key hdr:abc/override, and a raw '/' after a key is no resource
    @Test
    void aKeyPathMeansOneThing() {
        admin().body("{\"block\": true}").put("/admin/policies/reports/keys/hdr:abc/override").then().statusCode(200)
                .body("key", equalTo("hdr:abc"));
        admin().urlEncodingEnabled(false).get("/admin/policies/reports/keys/hdr:abc%2Foverride").then().statusCode(200)
                .body("key", equalTo("hdr:abc/override"));
        admin().urlEncodingEnabled(false).get("/admin/policies/reports/keys/hdr:abc/other").then().statusCode(404)
                .contentType("application/problem+json").body("detail", containsString("%2F"));
        admin().urlEncodingEnabled(false).delete("/admin/policies/reports/keys/hdr:a/b").then().statusCode(404)
                .body("detail", containsString("%2F"));
    }

    // slidegate.overrides.max (5 here): an override for a new target beyond it is a 409 problem that changes nothing; a
    // replacement is not refused, and a removal makes room. The live page's events count the overrides and carry a
    // version that moves with them, never the list (with 10 000 overrides one event was 7 MB); the list comes in pages
    @Test
    void overridesAreBoundedAndTheStreamCountsThem() throws Exception {
        String block = "{\"block\": true}";
        long version = event(e -> true).getLong("overridesVersion");
        for (int i = 0; i < 5; i++) {
            admin().body(block).put("/admin/policies/reports/keys/hdr:bound" + i + "/override").then().statusCode(200);
        }
        admin().body(block).put("/admin/policies/reports/keys/hdr:bound5/override").then().statusCode(409)
                .contentType("application/problem+json").body("type", containsString("too-many-overrides"))
                .body("detail", containsString("slidegate.overrides.max"));
        admin().get("/admin/policies/reports/keys/hdr:bound5/override").then().statusCode(404);
        admin().body("{\"limits\": [\"1/1m\"]}").put("/admin/policies/reports/keys/hdr:bound0/override").then()
                .statusCode(200);
        // an event computed before the changes may still be shared (one a second serves every page, by the instance's
        // clock, which this test sets): a second later by that clock, the next ones say it
        SettableClock.CLOCK.advance(Duration.ofMillis(1001));
        io.vertx.core.json.JsonObject event = event(e -> e.getInteger("overrides") == 5);
        assertTrue(event.getLong("overridesVersion") > version, event.encode());
        admin().get("/admin/overrides?limit=2").then().body("overrides", hasSize(2)).body("total", equalTo(5))
                .body("next", equalTo("2"));
        admin().get("/admin/overrides?limit=2&cursor=4").then().body("overrides", hasSize(1)).body("next", nullValue());
        admin().get("/admin/overrides?limit=0").then().statusCode(400);
        admin().delete("/admin/policies/reports/keys/hdr:bound1/override").then().statusCode(204);
        admin().body(block).put("/admin/policies/reports/keys/hdr:bound5/override").then().statusCode(200);
    }

    // issue 39: the live page shows, under an outgoing policy, what its upstream said (the demo's quotes client and its
    // partner, which publishes q=10 in the IETF fields); a policy of requests the service answers has nothing there
    @Test
    void theLivePageShowsWhatAnOutgoingPolicysUpstreamSaid() throws Exception {
        given().get("/api/quotes/ACME").then().statusCode(200);
        SettableClock.CLOCK.advance(Duration.ofMillis(1001)); // the live page's snapshot is a second old at most
        io.vertx.core.json.JsonObject event = event(e -> e.getJsonArray("policies").stream()
                .map(io.vertx.core.json.JsonObject.class::cast)
                .anyMatch(p -> p.getString("name").equals("quotes") && p.getJsonObject("upstream") != null
                        && p.getJsonObject("upstream").getString("seenAt") != null));
        io.vertx.core.json.JsonObject quotes = null;
        io.vertx.core.json.JsonObject reports = null;
        for (Object o : event.getJsonArray("policies")) {
            io.vertx.core.json.JsonObject p = (io.vertx.core.json.JsonObject) o;
            quotes = p.getString("name").equals("quotes") ? p : quotes;
            reports = p.getString("name").equals("reports") ? p : reports;
        }
        io.vertx.core.json.JsonObject upstream = quotes.getJsonObject("upstream");
        assertEquals(10L, upstream.getLong("limit"), upstream.encode());
        assertTrue(upstream.getLong("remaining") >= 0 && upstream.getLong("remaining") < 10, upstream.encode());
        assertEquals(0L, upstream.getLong("refusals"), upstream.encode());
        assertEquals(null, upstream.getString("learned"), "paced at the configured limits: " + upstream.encode());
        assertEquals(null, reports.getValue("upstream"), reports.encode());
    }

    /** The first of the live page's next 4 events that {@code wanted}, as JSON; every one counts the overrides. */
    private static io.vertx.core.json.JsonObject event(java.util.function.Predicate<io.vertx.core.json.JsonObject> wanted)
            throws Exception {
        java.net.http.HttpRequest request = java.net.http.HttpRequest
                .newBuilder(java.net.URI.create(io.restassured.RestAssured.baseURI + ":" + io.restassured.RestAssured.port
                        + "/admin/stream"))
                .header("Authorization", AdminCredentials.basicHeader())
                .timeout(Duration.ofSeconds(10)).GET().build();
        java.net.http.HttpResponse<java.util.stream.Stream<String>> r = java.net.http.HttpClient.newHttpClient()
                .send(request, java.net.http.HttpResponse.BodyHandlers.ofLines());
        try (java.util.stream.Stream<String> lines = r.body()) {
            return lines.filter(l -> l.startsWith("data:")).limit(4).map(data -> {
                io.vertx.core.json.JsonObject event = new io.vertx.core.json.JsonObject(data.substring(5).trim());
                assertTrue(event.getValue("overrides") instanceof Number, "a count, not a list: " + data);
                return event;
            }).filter(wanted).findFirst().orElseThrow(() -> new AssertionError("no such event among the next 4"));
        }
    }

    @Test
    void onlyAdminsChangeOverrides() {
        given().body("{\"block\": true}").put("/admin/policies/reports/override").then().statusCode(401);
        given().auth().preemptive().basic("viewer", "viewer-secret").body("{\"block\": true}")
                .put("/admin/policies/reports/override").then().statusCode(403);
        given().get("/admin/overrides").then().statusCode(401);
        admin().get("/admin/overrides").then().body("overrides", hasSize(0));
    }

    // each change is logged once: who, target, before -> after
    @Test
    void everyChangeIsLoggedOnceWithBeforeAndAfter() {
        try (LogCapture log = LogCapture.of("dev.slidegate.overrides")) {
            admin().body("{\"limits\": [\"2/1h\"], \"reason\": \"ticket 42\"}").put("/admin/policies/reports/override").then()
                    .statusCode(200);
            admin().body("{\"block\": true}").put("/admin/policies/reports/override").then().statusCode(200);
            admin().delete("/admin/policies/reports/override").then().statusCode(204);
            assertEquals(List.of(
                    "INFO Override of policy 'reports' set by admin: none -> limits [2/1h] (reason: ticket 42)",
                    "INFO Override of policy 'reports' set by admin: limits [2/1h] -> block",
                    "INFO Override of policy 'reports' removed by admin: block -> none"), log.lines());
        }
    }
}
