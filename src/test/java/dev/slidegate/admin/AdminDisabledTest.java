package dev.slidegate.admin;

import static io.restassured.RestAssured.given;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** {@code slidegate.admin.enabled=false}: 404 for everyone, credentials or not. */
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
}
