package dev.slidegate.admin;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.not;

import org.junit.jupiter.api.Test;

import dev.slidegate.http.ServiceChoicesTest;
import dev.slidegate.testing.AdminCredentials;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * The admin where the service puts it, for the role the service names: everything under that root, nothing anywhere
 * else (the demo's {@code /admin} is then the service's own path again), and the permission scoped to that root.
 */
@QuarkusTest
@TestProfile(ServiceChoicesTest.LibraryDefaults.class) // slidegate.admin.root-path=/ops/rate-limits, role viewer
class AdminRootTest {

    private static io.restassured.specification.RequestSpecification viewer() {
        return given().auth().preemptive().basic("viewer", "viewer-secret");
    }

    @Test
    void everythingIsUnderTheServicesRoot() {
        viewer().accept("application/json").get("/ops/rate-limits").then().statusCode(200).body("store",
                containsString("memory"));
        viewer().get("/ops/rate-limits/policies/products/keys").then().statusCode(200);
        viewer().get("/ops/rate-limits/overrides").then().statusCode(200);
        viewer().get("/ops/rate-limits/admin.js").then().statusCode(200).contentType(containsString("javascript"));
        // the page's own links lead under the root, never to /admin
        viewer().accept("text/html").get("/ops/rate-limits").then().statusCode(200)
                .body(containsString("src=\"/ops/rate-limits/admin.js\""), containsString("data-root=\"/ops/rate-limits\""),
                        not(containsString("\"/admin")));
        // nothing of the admin at the demo's root, or beside the root
        viewer().get("/admin").then().statusCode(404);
        viewer().get("/admin/policies/products/keys").then().statusCode(404);
        viewer().get("/ops/rate-limits-and-more").then().statusCode(404);
    }

    @Test
    void theRoleIsTheServicesSetting() {
        given().get("/ops/rate-limits").then().statusCode(401);
        AdminCredentials.admin().get("/ops/rate-limits").then().statusCode(403);
        AdminCredentials.admin().get("/ops/rate-limits/policies/products/keys").then()
                .statusCode(403);
        // the permission covers the root only: the service's other paths are as open as the service made them
        given().get("/api/products").then().statusCode(200);
    }

    @Test
    void aDisguisedPathToTheRootFindsNothing() {
        for (String raw : new String[] { "/ops%2Frate-limits/admin.js", "/api/..%2Fops/rate-limits/admin.js",
                "/ops/rate-limits%2Fadmin.js" }) {
            viewer().urlEncodingEnabled(false).get(raw).then().statusCode(404);
        }
    }
}
