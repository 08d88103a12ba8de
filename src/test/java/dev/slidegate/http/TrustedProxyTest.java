package dev.slidegate.http;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import dev.slidegate.testing.AdminCredentials;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;

/**
 * Behind a trusted proxy (the test client's loopback address plays it): the rightmost untrusted
 * forwarding entry is the client. And what hostile requests cannot do: a 5xx or an unbounded key.
 */
@QuarkusTest
@TestProfile(SharedProfiles.ProxyPlansAndOverrideSource.class)
class TrustedProxyTest {

    private static int products(String forwardedFor) {
        return given().header("X-Forwarded-For", forwardedFor).get("/api/products").statusCode();
    }

    /** Permits recorded for a key of the products policy, as the admin view shows them. */
    private static int used(String key) {
        return AdminCredentials.admin().get("/admin/policies/products/keys/" + key).then()
                .statusCode(200)
                .extract().jsonPath().getInt("limits[0].used");
    }

    @Test
    void theRealClientIsLimitedAndASpoofedLeftmostEntryChangesNothing() {
        for (int i = 0; i < 3; i++) {
            assertEquals(200, products("203.0.113.5"));
        }
        assertEquals(429, products("203.0.113.5"));
        assertEquals(429, products("1.1.1.1, 203.0.113.5"), "what the client wrote on the left is not believed");
        assertEquals(429, products("198.51.100." + 77 + ", 203.0.113.5, 127.0.0.2"), "trusted hops are skipped");
        assertEquals(200, products("203.0.113.6"), "another client behind the same proxy has its own window");
        // which address was charged: the client's, never what it wrote on the left
        assertEquals(3, used("ip:203.0.113.5"));
        assertEquals(1, used("ip:203.0.113.6"));
        assertEquals(0, used("ip:1.1.1.1"));
        assertEquals(0, used("ip:198.51.100.77"));
    }

    @Test
    void aClientsOwnForwardedHeaderChangesNothingBehindAProxyThatAppendsXForwardedFor() {
        // issue 20, attack 1: the proxy vouches for X-Forwarded-For only; the client rotates Forwarded
        int admitted = 0;
        for (int i = 0; i < 10; i++) {
            admitted += given().header("Forwarded", "for=198.51.100." + (100 + i)).header("X-Forwarded-For", "203.0.113.50")
                    .get("/api/products").statusCode() == 200 ? 1 : 0;
        }
        assertEquals(3, admitted, "a 3/10m policy admits 3 whatever Forwarded says");
        assertEquals(3, used("ip:203.0.113.50"));
        assertEquals(0, used("ip:198.51.100.100"));
    }

    @Test
    void eachRequestOnOneConnectionFromTheProxyIsItsOwnClients() throws IOException {
        // a proxy keeps its connections open for many clients: what one request said must not key the next
        String request = "GET /api/products HTTP/1.1\r\nHost: localhost\r\nX-Forwarded-For: %s\r\n%s\r\n";
        String response = raw(String.format(request, "203.0.113.70", "") + String.format(request, "203.0.113.71", "")
                + String.format(request, "203.0.113.70", "") + String.format(request, "203.0.113.72", "Connection: close\r\n"));
        assertEquals(4, response.split("HTTP/1.1 200 ", -1).length - 1, response);
        assertEquals(2, used("ip:203.0.113.70"));
        assertEquals(1, used("ip:203.0.113.71"));
        assertEquals(1, used("ip:203.0.113.72"));
    }

    @Test
    void addressesOfOneIpv6Slash64ShareOneLimit() {
        int admitted = 0;
        for (int i = 1; i <= 10; i++) {
            admitted += products("2001:db8:aaaa:bbbb::" + Integer.toHexString(i * 4099)) == 200 ? 1 : 0;
        }
        assertEquals(3, admitted);
        assertEquals(200, products("2001:db8:aaaa:bbbc::1"), "the next /64 is another caller");
    }

    @Test
    void aMalformedChainFallsBackToTheProxyAddress() {
        int before = used("ip:127.0.0.1");
        assertEquals(200, products("not-an-address"));
        assertEquals(before + 1, used("ip:127.0.0.1"), "the proxy's own address was charged");
    }

    @Test
    void tenThousandForwardingEntriesAreNoProblem() {
        String chain = "192.0.2.1, ".repeat(10_000) + "203.0.113.90";
        int before = used("ip:127.0.0.1");
        int status;
        try {
            status = products(chain);
        } catch (Exception e) { // (RestAssured throws the socket's exception as it is)
            // the server answered 431 and closed the connection while the client still wrote the header: the client's
            // write fails instead of reading the answer (seen once, in a newcomer run of 2026-11-27)
            assertInstanceOf(java.net.SocketException.class, e, "only the connection's close, not another failure");
            status = 431;
        }
        if (status == 200) { // more than 32 hops: the chain is not believed, and the proxy's own address is charged
            assertEquals(before + 1, used("ip:127.0.0.1"), "the proxy's address was charged");
        } else { // or the server refused so long a header before any handler: nobody was charged
            assertEquals(431, status);
            assertEquals(before, used("ip:127.0.0.1"));
        }
        assertEquals(0, used("ip:203.0.113.90"), "no entry of the chain was charged");
        assertEquals(0, used("ip:192.0.2.1"), "no entry of the chain was charged");
    }

    @Test
    void a64KilobyteKeyHeaderNeverGivesA5xx() {
        try {
            int status = given().header("X-Api-Key", "k".repeat(64 * 1024)).get("/api/reports").statusCode();
            assertTrue(status < 500, "status " + status); // the server refuses oversized headers before Slidegate sees them
        } catch (Exception e) { // RestAssured rethrows the checked SocketException unwrapped
            // the server may answer 431 and close before the client has written the whole header: the client
            // then sees a broken pipe instead of the status; that is a refusal too, never a 5xx
            Throwable cause = e;
            while (cause.getCause() != null && !(cause instanceof java.net.SocketException)) {
                cause = cause.getCause();
            }
            assertTrue(cause instanceof java.net.SocketException, e.toString());
        }
        int big = given().header("X-Api-Key", "k".repeat(6 * 1024)).get("/api/reports").statusCode();
        assertEquals(200, big, "a large key within the server's header limit is hashed into a bounded key");
    }

    @Test
    void nonUtf8BytesInAKeyHeaderAreAKeyLikeAnyOther() throws IOException {
        byte[] key = { 'k', (byte) 0xff, (byte) 0xfe, (byte) 0xc3, '{', '}' };
        for (int i = 0; i < 3; i++) {
            assertEquals(200, rawGet("/api/reports", key));
        }
        assertEquals(429, rawGet("/api/reports", key));
    }

    @Test
    void aRequestWithoutHostGetsAProblemAndNoErrorLine() throws IOException {
        try (dev.slidegate.testing.LogCapture log = dev.slidegate.testing.LogCapture.of("io.quarkus")) {
            for (int i = 0; i < 5; i++) {
                String response = raw("GET /api/products HTTP/1.1\r\nConnection: close\r\n\r\n");
                assertTrue(response.startsWith("HTTP/1.1 400 "), response);
                assertTrue(response.toLowerCase(java.util.Locale.ROOT).contains("content-type: application/problem+json"),
                        response);
                assertTrue(response.contains("\"detail\":\"An HTTP/1.1 request must name its host: send a Host header"),
                        response);
            }
            assertTrue(!log.anyAtLeast(java.util.logging.Level.SEVERE), "no ERROR line: " + log.lines());
        }
        // HTTP/1.0 needs no Host; an empty Host is a host
        assertTrue(raw("GET /api/products HTTP/1.0\r\n\r\n").startsWith("HTTP/1.0 "));
    }

    /** The whole answer to {@code request}, sent as is on one connection (the demo API's contract uses it too). */
    static String raw(String request) throws IOException {
        try (Socket s = new Socket("127.0.0.1", RestAssured.port)) {
            s.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            ByteArrayOutputStream response = new ByteArrayOutputStream();
            s.getInputStream().transferTo(response);
            return response.toString(StandardCharsets.ISO_8859_1);
        }
    }

    /** A GET with an X-Api-Key of arbitrary bytes, which no HTTP client library would send. */
    private static int rawGet(String path, byte[] apiKey) throws IOException {
        try (Socket s = new Socket("127.0.0.1", RestAssured.port)) {
            OutputStream out = s.getOutputStream();
            out.write(("GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nX-Api-Key: ")
                    .getBytes(StandardCharsets.US_ASCII));
            out.write(apiKey);
            out.write("\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            ByteArrayOutputStream response = new ByteArrayOutputStream();
            in.transferTo(response);
            String statusLine = response.toString(StandardCharsets.ISO_8859_1).lines().findFirst().orElse("");
            return Integer.parseInt(statusLine.split(" ")[1]);
        }
    }
}
