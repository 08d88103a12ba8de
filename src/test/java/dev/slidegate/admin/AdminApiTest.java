package dev.slidegate.admin;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.UUID;

import org.junit.jupiter.api.Test;

import dev.slidegate.http.SmallLimits;
import dev.slidegate.testing.AdminCredentials;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.specification.RequestSpecification;

/** The admin API: security, every endpoint and status, counts that follow traffic, reads that consume nothing, reset. */
@QuarkusTest
@TestProfile(SmallLimits.class)
class AdminApiTest {

    static RequestSpecification admin() {
        return AdminCredentials.admin().contentType("application/json");
    }

    @Test
    void nobodyGetsInWithoutTheAdminRole() {
        // Quarkus' HTTP security answers, with its challenge: the admin's permission is in force for its root
        given().get("/admin").then().statusCode(401).header("WWW-Authenticate", org.hamcrest.Matchers.startsWith("basic"));
        given().get("/admin/policies/products/keys").then().statusCode(401);
        given().delete("/admin/policies/products/keys/ip:127.0.0.1").then().statusCode(401);
        given().auth().preemptive().basic("admin", "wrong").get("/admin").then().statusCode(401);
        given().auth().preemptive().basic("viewer", "viewer-secret").get("/admin").then().statusCode(403);
        given().auth().preemptive().basic("viewer", "viewer-secret").get("/admin/policies/products/keys").then()
                .statusCode(403);
        admin().get("/admin").then().statusCode(200);
    }

    // the permission guards /admin/* as spelled; a spelling that reaches the page's files only once
    // decoded is refused before it, with or without credentials
    @Test
    void noSpellingOfTheAdminPathGetsInWithoutCredentials() {
        for (String raw : new String[] { "/admin%2fadmin.js", "/admin%2Fadmin.js", "/api/..%2Fadmin/admin.js",
                "/admin%2findex.html" }) {
            given().urlEncodingEnabled(false).get(raw).then().statusCode(404);
            admin().urlEncodingEnabled(false).get(raw).then().statusCode(404);
        }
        given().get("/admin/admin.js").then().statusCode(401);
        admin().get("/admin/admin.js").then().statusCode(200);
    }

    @Test
    void theSummaryListsEveryPolicyWithItsCounts() {
        String apiKey = UUID.randomUUID().toString();
        long admittedBefore = admin().get("/admin").jsonPath().getLong("policies.find { it.name == 'reports' }.admitted");
        long refusedBefore = admin().get("/admin").jsonPath().getLong("policies.find { it.name == 'reports' }.refused");
        for (int i = 0; i < 4; i++) {
            given().header("X-Api-Key", apiKey).get("/api/reports");
        }
        admin().accept("application/json").get("/admin").then().statusCode(200).contentType("application/json")
                .body("store", equalTo("memory")).body("enabled", equalTo(true))
                .body("policies.name", hasItem("products")).body("policies.name", hasItem("reports.pro"))
                .body("policies.find { it.name == 'reports' }.limits", equalTo(java.util.List.of("3/1h")))
                .body("policies.find { it.name == 'completions' }.limits", equalTo(java.util.List.of("100 tokens/1h")))
                .body("policies.find { it.name == 'reports' }.strategy", equalTo("fixed-window"))
                .body("policies.find { it.name == 'reports' }.key", equalTo("header:X-Api-Key"))
                .body("policies.find { it.name == 'reports' }.admitted", equalTo((int) admittedBefore + 3))
                .body("policies.find { it.name == 'reports' }.refused", equalTo((int) refusedBefore + 1));
    }

    // traffic moves the counts; reading them five times consumes nothing; a reset lets the caller in again
    @Test
    void countsFollowTrafficAndAResetLetsTheCallerIn() {
        String apiKey = "admin-" + UUID.randomUUID();
        String path = "/admin/policies/reports/keys/hdr:" + apiKey;
        given().header("X-Api-Key", apiKey).get("/api/reports").then().statusCode(200);
        given().header("X-Api-Key", apiKey).get("/api/reports").then().statusCode(200);
        for (int i = 0; i < 5; i++) {
            admin().get(path).then().statusCode(200).body("key", equalTo("hdr:" + apiKey))
                    .body("limits[0].limit", equalTo("3/1h")).body("limits[0].used", equalTo(2))
                    .body("limits[0].remaining", equalTo(1));
        }
        given().header("X-Api-Key", apiKey).get("/api/reports").then().statusCode(200);
        given().header("X-Api-Key", apiKey).get("/api/reports").then().statusCode(429);
        admin().get(path).then().body("limits[0].used", equalTo(3)).body("usage", equalTo(1.0f));
        admin().delete(path).then().statusCode(204);
        admin().get(path).then().body("limits[0].used", equalTo(0));
        given().header("X-Api-Key", apiKey).get("/api/reports").then().statusCode(200);
    }

    // issue 41: a monthly budget in Berlin shows the month to date; its reset is the end of the month there, as the
    // calendar says (java.time), and the RateLimit fields give no window for it, only the time to its end
    @Test
    void aMonthlyBudgetShowsTheMonthToDate() {
        String apiKey = "month-" + UUID.randomUUID();
        java.time.ZonedDateTime now = java.time.ZonedDateTime.now(java.time.ZoneId.of("Europe/Berlin"));
        long toMonthEnd = java.time.Duration.between(now, now.toLocalDate().withDayOfMonth(1).plusMonths(1)
                .atStartOfDay(now.getZone())).toSeconds();
        String fields = given().header("X-Api-Key", apiKey).get("/api/completions?prompt=hello&max-tokens=20").then()
                .statusCode(200).header("RateLimit-Policy", org.hamcrest.Matchers.containsString(
                        "\"completion-tokens-month\";q=1000000;qu=\"slidegate-tokens\""))
                .extract().header("RateLimit");
        java.util.regex.Matcher t = java.util.regex.Pattern.compile("\"completion-tokens-month\";r=999980;t=(\\d+)")
                .matcher(fields);
        org.junit.jupiter.api.Assertions.assertTrue(t.find(), fields);
        org.junit.jupiter.api.Assertions.assertTrue(Math.abs(Long.parseLong(t.group(1)) - toMonthEnd) <= 3,
                fields + ": the month ends in Berlin in " + toMonthEnd + " s");
        String body = given().header("X-Api-Key", apiKey).get("/api/completions?prompt=hello&max-tokens=20").asString();
        long tokens = body.lines().count();
        dev.slidegate.testing.Eventually.eventually(java.time.Duration.ofSeconds(5),
                () -> admin().get("/admin/policies/completion-tokens/keys/hdr:" + apiKey).jsonPath(),
                view -> view.getLong("limits[1].used") == 2 * tokens, "both completions settled: " + 2 * tokens);
        admin().get("/admin/policies/completion-tokens/keys/hdr:" + apiKey).then()
                .body("limits[1].limit", equalTo("1000000 tokens/month (Europe/Berlin)"));
    }

    @Test
    void keysArePagedAndSortableByUsage() {
        String busy = "busy-" + UUID.randomUUID();
        String calm = "calm-" + UUID.randomUUID();
        for (int i = 0; i < 3; i++) {
            given().header("X-Api-Key", busy).get("/api/reports");
        }
        given().header("X-Api-Key", calm).get("/api/reports");
        admin().get("/admin/policies/reports/keys?sort=usage&limit=1").then().statusCode(200)
                .body("policy", equalTo("reports")).body("keys", hasSize(1)).body("keys[0].usage", equalTo(1.0f));
        // every key, by usage: never increasing, the busy caller (3 of 3) before the calm one (1 of 3)
        var sorted = admin().get("/admin/policies/reports/keys?sort=usage&limit=1000").then().statusCode(200).extract()
                .jsonPath();
        java.util.List<String> keys = sorted.getList("keys.key", String.class);
        java.util.List<Float> usages = sorted.getList("keys.usage", Float.class);
        for (int i = 1; i < usages.size(); i++) {
            assertTrue(usages.get(i - 1) >= usages.get(i), "not sorted by usage: " + usages);
        }
        int b = keys.indexOf("hdr:" + busy);
        int c = keys.indexOf("hdr:" + calm);
        assertTrue(b >= 0 && c > b, "busy at " + b + ", calm at " + c + " in " + keys);
        assertEquals(1.0f, usages.get(b));
        assertTrue(usages.get(c) < 1.0f, "calm's usage " + usages.get(c));
        java.util.List<String> all = new java.util.ArrayList<>();
        String cursor = "";
        do {
            var page = admin().queryParam("limit", 1).queryParam("cursor", cursor).get("/admin/policies/reports/keys").then()
                    .statusCode(200)
                    .body("keys", hasSize(1)).extract().jsonPath();
            all.add(page.getString("keys[0].key"));
            cursor = page.getString("next");
        } while (cursor != null && all.size() < 100);
        assertEquals(true, all.contains("hdr:" + busy) && all.contains("hdr:" + calm), all.toString());
    }

    @Test
    void badRequestsGetProblems() {
        admin().get("/admin/policies/nope/keys").then().statusCode(404).contentType("application/problem+json")
                .body("detail", containsString("There is no policy 'nope'"));
        admin().get("/admin/policies/products/keys?limit=0").then().statusCode(400).body("detail",
                containsString("limit must be"));
        admin().get("/admin/policies/products/keys?sort=name").then().statusCode(400).body("detail",
                containsString("sort 'name'"));
        admin().get("/admin/policies/products/keys?sort=usage&cursor=x").then().statusCode(400);
        admin().get("/admin/policies/products/keys/nobody").then().statusCode(200).body("limits[0].used", equalTo(0))
                .body("limits[0].resetMs", equalTo(0));
    }

    @Test
    void keysWithSlashesAndColonsCanBeAddressed() {
        given().get("/test/keys/other/7").then().statusCode(200); // per-route: ip+path, a key with '/' and ':'
        String key = admin().get("/admin/policies/per-route/keys").then().statusCode(200).extract().path("keys[0].key");
        // a key holding '/' is one path segment, its '/' written %2F (a raw '/' would end the key)
        admin().urlEncodingEnabled(false).get("/admin/policies/per-route/keys/" + segment(key)).then().statusCode(200)
                .body("key", equalTo(key))
                .body("limits[0].used", org.hamcrest.Matchers.greaterThan(0));
        admin().get("/admin/policies/per-route/keys?cursor=&limit=5").then().body("next", nullValue());
    }

    /** A policy, plan or key as one path segment, as the live page writes it: '/' and '.' encoded too. */
    static String segment(String text) {
        return java.net.URLEncoder.encode(text, java.nio.charset.StandardCharsets.UTF_8).replace("+", "%20")
                .replace(".", "%2E").replace("*", "%2A");
    }

    // a property over random keys (the seed is printed, and a failure names the key): whatever a caller puts
    // in a key, '/', '..', '%', '{', '*', '?', '#', spaces or non-ASCII, the admin path that carries the key
    // as one encoded segment reaches exactly that key, and a reset through it resets that key alone
    @Test
    void everyKeyACallerCanMakeIsReachedExactlyThroughItsAdminPath() {
        long seed = System.nanoTime();
        System.out.println("AdminApiTest.everyKeyACallerCanMakeIsReachedExactlyThroughItsAdminPath seed " + seed);
        java.util.Random random = new java.util.Random(seed);
        String kept = "abXY09._~:@/-";
        String odd = "{}*?#% +&=\u00e9\u4e2d\ud83d\ude00\"'<>";
        String[] pieces = { "..", "/../", "/../../login/keys/ip:127.0.0.1", "%2F", "%2e%2e", "{tag}", "*" };
        java.util.Set<String> before = keys();
        String previous = null;
        for (int i = 0; i < 30; i++) {
            StringBuilder raw = new StringBuilder();
            for (int n = random.nextInt(6); n >= 0; n--) {
                int kind = random.nextInt(10);
                raw.append(kind < 6 ? String.valueOf(kept.charAt(random.nextInt(kept.length())))
                        : kind < 8 ? pieces[random.nextInt(pieces.length)]
                                : String.valueOf(Character.toChars(odd.codePointAt(odd.offsetByCodePoints(0,
                                        random.nextInt(odd.codePointCount(0, odd.length())))))));
            }
            raw.append('~').append(i); // each key new
            given().queryParam("tenant", raw.toString()).get("/test/keys/by-param").then().statusCode(200);
            java.util.Set<String> after = keys();
            after.removeAll(before);
            assertEquals(1, after.size(), "one new key for '" + raw + "': " + after);
            String key = after.iterator().next();
            String path = "/admin/policies/per-param/keys/" + segment(key);
            admin().urlEncodingEnabled(false).get(path).then().statusCode(200).body("key", equalTo(key))
                    .body("limits[0].used", equalTo(1));
            admin().urlEncodingEnabled(false).delete(path).then().statusCode(204);
            admin().urlEncodingEnabled(false).get(path).then().statusCode(200).body("limits[0].used", equalTo(0));
            if (previous != null) { // the reset reached this key alone
                admin().urlEncodingEnabled(false).get("/admin/policies/per-param/keys/" + segment(previous)).then()
                        .statusCode(200).body("limits[0].used", equalTo(1));
            }
            given().queryParam("tenant", raw.toString()).get("/test/keys/by-param").then().statusCode(200);
            previous = key;
            before.add(key);
        }
    }

    private static java.util.Set<String> keys() {
        return new java.util.HashSet<>(admin().get("/admin/policies/per-param/keys?limit=1000").then().statusCode(200)
                .extract().jsonPath().getList("keys.key", String.class));
    }
}
