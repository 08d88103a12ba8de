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
        given().get("/test/plain/3").then().statusCode(429).contentType("application/problem+json")
                .header("Retry-After", matchesPattern("\\d+")).body("policy", equalTo("plain-get"));
        given().post("/test/plain/3").then().statusCode(200);
    }

    // ** spans segments; the key source applies (a missing header is a 400 problem)
    @Test
    void doubleStarMatchesAnyRestAndKeysApply() {
        given().get("/test/plain/files/a/b").then().statusCode(400).contentType("application/problem+json")
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
}
