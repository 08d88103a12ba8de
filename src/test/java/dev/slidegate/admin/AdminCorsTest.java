package dev.slidegate.admin;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;

import org.junit.jupiter.api.Test;

import dev.slidegate.http.SharedProfiles;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * A service that turns CORS on for its own front end ({@code quarkus.http.cors.*} with credentials) keeps the admin
 * root out of it ({@code slidegate.admin.cors=false}, the default): a page of the allowed origin, or a script injected
 * into it, can neither make a credentialed cross-origin PUT to the admin API nor read its answers. The rest of the
 * service keeps its CORS.
 */
@QuarkusTest
@TestProfile(SharedProfiles.ProxyPlansAndOverrideSource.class)
class AdminCorsTest {

    private static final String ORIGIN = "http://app.example";

    @Test
    void aCrossOriginPreflightOfTheAdminIsRefused() {
        given().header("Origin", ORIGIN).header("Access-Control-Request-Method", "PUT")
                .header("Access-Control-Request-Headers", "authorization,content-type")
                .options("/admin/policies/reports/override").then().statusCode(403)
                .header("Access-Control-Allow-Origin", nullValue()).header("Access-Control-Allow-Credentials", nullValue())
                .contentType("application/problem+json");
        given().header("Origin", ORIGIN).header("Access-Control-Request-Method", "DELETE")
                .options("/admin/policies/reports/keys/hdr:x").then().statusCode(403);
    }

    @Test
    void anAdminAnswerCarriesNoCorsFields() {
        AdminApiTest.admin().header("Origin", ORIGIN).get("/admin/overrides").then().statusCode(200)
                .header("Access-Control-Allow-Origin", nullValue()).header("Access-Control-Allow-Credentials", nullValue());
    }

    @Test
    void theServiceKeepsItsCors() {
        given().header("Origin", ORIGIN).header("Access-Control-Request-Method", "GET").options("/api/products").then()
                .statusCode(200).header("Access-Control-Allow-Origin", equalTo(ORIGIN))
                .header("Access-Control-Allow-Credentials", equalTo("true"));
        given().header("Origin", ORIGIN).get("/api/products").then().header("Access-Control-Allow-Origin", equalTo(ORIGIN));
    }
}
