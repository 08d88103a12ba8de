package dev.slidegate.http;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.matchesPattern;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** Policies attached to endpoints by configuration alone: by path pattern and HTTP method. */
@QuarkusTest
@TestProfile(SharedProfiles.PathsDryRunNoAdmin.class)
class PathPoliciesTest {

    // /test/plain/* by ip+path, GET only: /1 and /2 share the pattern's window; POST is not limited
    @Test
    void aPatternAndMethodLimitAnEndpointWithoutAnnotations() {
        given().get("/test/plain/1").then().statusCode(200).header("RateLimit", "\"plain-get-1h\";r=1;t=3600");
        given().get("/test/plain/2").then().statusCode(200);
        given().get("/test/plain/3").then().statusCode(429).header("Content-Type", Problem.CONTENT_TYPE)
                .header("Retry-After", matchesPattern("\\d+")).body("policy", equalTo("plain-get"));
        given().post("/test/plain/3").then().statusCode(200);
    }

    // ** spans segments; the key source applies (a missing header is a 400 problem)
    @Test
    void doubleStarMatchesAnyRestAndKeysApply() {
        given().get("/test/plain/files/a/b").then().statusCode(400).header("Content-Type", Problem.CONTENT_TYPE)
                .body("policy", equalTo("files"));
        for (int i = 0; i < 3; i++) {
            given().header("X-Api-Key", "f1").get("/test/plain/files/x/" + i).then().statusCode(200)
                    .header("RateLimit-Policy", "\"files-1h\";q=3;w=3600");
        }
        given().header("X-Api-Key", "f1").get("/test/plain/files/y/z").then().statusCode(429);
        given().header("X-Api-Key", "f2").get("/test/plain/files/y/z").then().statusCode(200);
    }

    // every key is found before any policy is charged: a request refused for a missing key costs no other policy a permit
    @Test
    void aMissingKeyChargesNoOtherPolicy() {
        for (int i = 0; i < 3; i++) {
            given().get("/test/plain/both/" + i).then().statusCode(400).body("policy", equalTo("both-tenant"));
        }
        given().header("X-Tenant", "t1").get("/test/plain/both/x").then().statusCode(200)
                .header("RateLimit", containsString("\"both-ip-1h\";r=1;t=3600"))
                .header("RateLimit", containsString("\"both-tenant-1h\";r=4;t=3600"));
    }

    // random spellings of two routed paths, /test/spell (policy spell-list) and /test/spell/<id> (spell-item), each 1/1h
    // per X-Spell: matrix parameters on any segment, dot segments, percent-encoded letters (and an encoded '/', which the
    // REST layer decodes where a segment has matrix parameters), empty segments, a trailing slash, HEAD for GET. The
    // oracle is the endpoints' own count of runs: a spelling sent with a fresh key that made an endpoint run must have
    // charged that endpoint's policy, so the plain path with the same key is refused and does not run it
    @Test
    void noSpellingOfARoutedPathEscapesItsPolicy() {
        java.util.Random random = new java.util.Random(20261125);
        int reached = 0;
        for (int run = 0; run < 300; run++) {
            boolean item = random.nextBoolean();
            java.util.List<String> segments = new java.util.ArrayList<>(java.util.List.of("test", "spell"));
            if (item) {
                segments.add("i" + random.nextInt(1000));
            }
            String spelled = spell(segments, random);
            String method = random.nextInt(3) == 0 ? "HEAD" : "GET";
            String key = "s-" + java.util.UUID.randomUUID();
            int list = SpellResource.LIST.get();
            int items = SpellResource.ITEM.get();
            int status = given().urlEncodingEnabled(false).header("X-Spell", key).request(method, spelled).statusCode();
            boolean ranList = SpellResource.LIST.get() > list;
            boolean ranItem = SpellResource.ITEM.get() > items;
            if (!ranList && !ranItem) {
                org.junit.jupiter.api.Assertions.assertNotEquals(200, status, method + " " + spelled + " ran nothing");
                continue;
            }
            reached++;
            String plain = ranList ? "/test/spell" : "/test/spell/i1";
            int before = ranList ? SpellResource.LIST.get() : SpellResource.ITEM.get();
            given().header("X-Spell", key).get(plain).then().statusCode(429);
            org.junit.jupiter.api.Assertions.assertEquals(before,
                    ranList ? SpellResource.LIST.get() : SpellResource.ITEM.get(),
                    method + " " + spelled + " reached the " + (ranList ? "list" : "item") + " endpoint uncharged");
        }
        org.junit.jupiter.api.Assertions.assertTrue(reached > 150, "most spellings route: " + reached);
    }

    /** One random spelling of {@code /<segments>} that a router may still route to it. */
    static String spell(java.util.List<String> segments, java.util.Random random) {
        StringBuilder path = new StringBuilder();
        for (int i = 0; i < segments.size(); i++) {
            String segment = segments.get(i);
            switch (random.nextInt(8)) {
                case 0 -> path.append("/.");
                case 1 -> path.append("/x/..");
                case 2 -> path.append("/");
                default -> {
                }
            }
            if (random.nextInt(4) == 0) { // a letter percent-encoded, in either case
                int at = random.nextInt(segment.length());
                String hex = String.format("%%%02X", (int) segment.charAt(at));
                segment = segment.substring(0, at) + (random.nextBoolean() ? hex : hex.toLowerCase(java.util.Locale.ROOT))
                        + segment.substring(at + 1);
            }
            boolean encodedSlash = i > 0 && random.nextInt(10) == 0;
            path.append(encodedSlash ? "%2F" : "/").append(segment);
            if (random.nextInt(3) == 0) {
                path.append(random.nextBoolean() ? ";v=" + random.nextInt(100) : ";a");
            }
        }
        if (random.nextInt(3) == 0) {
            path.append('/');
        }
        return path.toString();
    }
}
