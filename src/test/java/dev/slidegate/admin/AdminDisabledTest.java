package dev.slidegate.admin;

import static io.restassured.RestAssured.given;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * {@code slidegate.admin.enabled=false}: 404 for everyone, credentials or not; the admin is not even built into the
 * service (none of its beans), and a start that asks for it at run time stops with a sentence.
 */
@QuarkusTest
@TestProfile(dev.slidegate.http.SharedProfiles.PathsDryRunNoAdmin.class)
class AdminDisabledTest {

    @Test
    void adminAnswers404() {
        given().get("/admin").then().statusCode(404);
        AdminApiTest.admin().get("/admin").then().statusCode(404);
        AdminApiTest.admin().get("/admin/policies/products/keys").then().statusCode(404);
        AdminApiTest.admin().get("/admin/stream").then().statusCode(404);
        given().get("/api/products").then().statusCode(200);
    }

    @Test
    void theAdminIsNotBuiltIntoAServiceWithoutIt() {
        org.junit.jupiter.api.Assertions.assertFalse(io.quarkus.arc.Arc.container().instance(AdminService.class).isAvailable());
        org.junit.jupiter.api.Assertions.assertFalse(io.quarkus.arc.Arc.container().instance(AdminRoutes.class).isAvailable());
        org.junit.jupiter.api.Assertions.assertTrue(io.quarkus.arc.Arc.container().instance(AdminBuild.class).isAvailable());
        new AdminBuild().onStart(null, dev.slidegate.testing.TestConfigs.slidegate(java.util.Map.of()));
        io.quarkus.runtime.configuration.ConfigurationException e = org.junit.jupiter.api.Assertions.assertThrows(
                io.quarkus.runtime.configuration.ConfigurationException.class, () -> new AdminBuild().onStart(null,
                        dev.slidegate.testing.TestConfigs.slidegate(java.util.Map.of("slidegate.admin.enabled", "true"))));
        org.junit.jupiter.api.Assertions.assertEquals("Invalid Slidegate configuration: slidegate.admin.enabled=true when "
                + "the service starts, but it was built without the admin (slidegate.admin.enabled was not 'true' when it "
                + "was built): set slidegate.admin.enabled=true in application.properties (or when building) and build it "
                + "again", e.getMessage());
    }
}
