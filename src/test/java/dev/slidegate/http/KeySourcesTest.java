package dev.slidegate.http;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import dev.slidegate.config.PolicyCatalog;
import dev.slidegate.config.StoreStack;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** The key sources path, param:, composites and a custom KeyResolver, over HTTP. */
@QuarkusTest
@TestProfile(SmallLimits.class)
class KeySourcesTest {

    @Inject
    StoreStack stack;
    @Inject
    PolicyCatalog registry;

    @org.junit.jupiter.api.BeforeEach
    void resetRouteWindows() {
        var perRoute = registry.policies().get("per-route").policy();
        for (String route : new String[] { "/test/keys/items/:id", "/test/keys/other/:id" }) {
            stack.inspection().reset(perRoute, "ip:127.0.0.1+path:" + route).toCompletableFuture().join();
        }
    }

    // ip+path: /items/1 and /items/2 are one route, /other/1 another
    @Test
    void pathKeysCallersPerRouteTemplate() {
        given().get("/test/keys/items/1").then().statusCode(200);
        given().get("/test/keys/items/2").then().statusCode(200);
        given().get("/test/keys/items/3").then().statusCode(429);
        given().get("/test/keys/other/1").then().statusCode(200);
    }

    @Test
    void aQueryParameterKeysCallers() {
        given().get("/test/keys/by-param?tenant=acme").then().statusCode(200);
        given().get("/test/keys/by-param?tenant=acme").then().statusCode(200);
        given().get("/test/keys/by-param?tenant=acme").then().statusCode(429);
        given().get("/test/keys/by-param?tenant=globex").then().statusCode(200);
        given().get("/test/keys/by-param").then().statusCode(400).body("detail",
                containsString("query parameter tenant is required"));
    }

    // tenant (a @Named KeyResolver) + header:X-Region: both must agree to count together
    @Test
    void aCustomResolverComposesWithAHeader() {
        given().header("X-Tenant-Id", "ACME").header("X-Region", "eu").get("/test/keys/by-tenant").then().statusCode(200);
        given().header("X-Tenant-Id", "acme").header("X-Region", "eu").get("/test/keys/by-tenant").then().statusCode(200);
        given().header("X-Tenant-Id", "Acme").header("X-Region", "eu").get("/test/keys/by-tenant").then().statusCode(429);
        given().header("X-Tenant-Id", "acme").header("X-Region", "us").get("/test/keys/by-tenant").then().statusCode(200);
        given().header("X-Region", "us").get("/test/keys/by-tenant").then().statusCode(400)
                .body("detail", containsString("limits callers by tenant"));
        given().header("X-Tenant-Id", "acme").get("/test/keys/by-tenant").then().statusCode(400)
                .body("detail", containsString("X-Region header is required"));
    }
}
