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
            for (String peer : new String[] { "127.0.0.1", "127.0.0.2", "127.0.0.3" }) {
                stack.inspection().reset(perRoute, "ip:" + peer + "+path:" + route).toCompletableFuture().join();
            }
        }
    }

    // the service remembers each connection's peer and key (by the address object, many per event loop): two
    // callers on kept-alive connections whose requests interleave are each counted under their own address
    @Test
    void interleavedConnectionsOfTwoPeersEachCountUnderTheirOwnAddress() throws java.io.IOException {
        try (java.net.Socket a = connectFrom("127.0.0.2"); java.net.Socket b = connectFrom("127.0.0.3")) {
            StringBuilder seen = new StringBuilder();
            for (int round = 0; round < 3; round++) { // per-route admits 2 per caller and route
                seen.append(statusOf(a)).append(' ').append(statusOf(b)).append(' ');
            }
            org.junit.jupiter.api.Assertions.assertEquals("200 200 200 200 429 429 ", seen.toString());
        }
    }

    private static java.net.Socket connectFrom(String local) throws java.io.IOException {
        java.net.Socket s = new java.net.Socket();
        s.bind(new java.net.InetSocketAddress(local, 0));
        s.connect(new java.net.InetSocketAddress("127.0.0.1", io.restassured.RestAssured.port));
        return s;
    }

    /** Sends one GET of /test/keys/items/1 on {@code s} (kept alive) and reads its whole answer: its status. */
    private static int statusOf(java.net.Socket s) throws java.io.IOException {
        s.getOutputStream().write("GET /test/keys/items/1 HTTP/1.1\r\nHost: localhost\r\n\r\n"
                .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        java.io.InputStream in = s.getInputStream();
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int c = in.read();
            if (c < 0) {
                throw new java.io.EOFException("connection closed after: " + head);
            }
            head.append((char) c);
        }
        java.util.regex.Matcher length = java.util.regex.Pattern.compile("(?i)content-length: *(\\d+)").matcher(head);
        in.readNBytes(length.find() ? Integer.parseInt(length.group(1)) : 0);
        return Integer.parseInt(head.substring(9, 12));
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
