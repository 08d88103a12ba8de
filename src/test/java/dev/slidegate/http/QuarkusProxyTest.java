package dev.slidegate.http;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

import dev.slidegate.testing.AdminCredentials;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * A service that configured its proxies once, in Quarkus' own {@code quarkus.http.proxy.*}, and set no
 * {@code slidegate.http.*}: Slidegate trusts the same proxies and reads the same header, but right to
 * left. (The test client's loopback address plays a proxy that appends {@code X-Forwarded-For}.)
 */
@QuarkusTest
@TestProfile(SharedProfiles.ForwardingAndKeyBudget.class)
class QuarkusProxyTest {

    private static int used(String key) {
        return AdminCredentials.admin().get("/admin/policies/products/keys/" + key).then()
                .statusCode(200).extract().jsonPath().getInt("limits[0].used");
    }

    @Test
    void theClientIsReadRightToLeftWhereQuarkusTakesWhatTheClientWrote() {
        int admitted = 0;
        for (int i = 0; i < 10; i++) {
            admitted += given().header("X-Forwarded-For", "198.51.100." + (10 + i) + ", 203.0.113.70").get("/api/products")
                    .statusCode() == 200 ? 1 : 0;
        }
        assertEquals(3, admitted, "a 3/10m policy admits 3 to the client the proxy saw, whatever the client wrote");
        assertEquals(3, used("ip:203.0.113.70"));
        assertEquals(0, used("ip:198.51.100.10"));
        // why Slidegate reads Quarkus' settings and not the address Quarkus resolved: that is the leftmost
        // entry, which the client wrote (if this ever fails, Quarkus reads right to left: docs/security.md)
        assertEquals("198.51.100.10", given().header("X-Forwarded-For", "198.51.100.10, 203.0.113.70")
                .get("/test/keys/quarkus-remote-address").then().statusCode(200).extract().asString());
    }

    @Test
    void withoutAForwardingHeaderTheProxyItselfIsTheCaller() {
        int before = used("ip:127.0.0.1");
        assertEquals(200, given().get("/api/products").statusCode());
        assertEquals(before + 1, used("ip:127.0.0.1"));
    }
}
