package dev.slidegate.http;

import static dev.slidegate.http.HeaderTimeoutTest.closedByServer;
import static dev.slidegate.http.HeaderTimeoutTest.connect;
import static dev.slidegate.http.HeaderTimeoutTest.trickleUntilClosed;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * What the header timeout does not time, with a 1 s timeout so that nothing waits for 10 s: a kept-alive
 * connection idle between requests, a request body sent slowly after complete headers. And what it does:
 * a connection that never sends a byte, the second request of a kept-alive connection.
 */
@QuarkusTest
@TestProfile(HeaderTimeoutScopeTest.OneSecond.class)
class HeaderTimeoutScopeTest {

    public static class OneSecond extends SmallLimits {
        @Override
        public Map<String, String> getConfigOverrides() {
            return plus("slidegate.http.header-timeout", "1s");
        }
    }

    private static final String GET = "GET /q/health/live HTTP/1.1\r\nHost: localhost\r\n\r\n";

    /** Reads one response whose body has a Content-Length; its status line. */
    private static String response(Socket socket) throws IOException {
        socket.setSoTimeout(10_000);
        InputStream in = socket.getInputStream();
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (!head.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("closed after " + head);
            }
            head.write(b);
        }
        String text = head.toString(StandardCharsets.US_ASCII);
        int length = 0;
        for (String line : text.split("\r\n")) {
            if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
                length = Integer.parseInt(line.substring(15).trim());
            }
        }
        in.readNBytes(length);
        socket.setSoTimeout(50);
        return text.substring(0, text.indexOf("\r\n"));
    }

    private static void send(Socket socket, String text) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(text.getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    @Test
    void aConnectionThatSendsNothingIsClosed() throws Exception {
        long before = System.nanoTime();
        try (Socket silent = connect()) {
            while (!closedByServer(silent)) {
                assertTrue(System.nanoTime() - before < 30_000_000_000L, "a silent connection is still open after 30 s");
            }
            assertTrue(System.nanoTime() - before >= 999_000_000L, "closed before its second");
        }
    }

    @Test
    void anIdleKeptAliveConnectionIsNotTimed() throws Exception {
        try (Socket socket = connect()) {
            send(socket, GET);
            assertTrue(response(socket).endsWith(" 200 OK"));
            Thread.sleep(2_500); // idle for 2.5 timeouts between requests
            assertFalse(closedByServer(socket), "an idle kept-alive connection was closed");
            send(socket, GET);
            assertTrue(response(socket).endsWith(" 200 OK"));
        }
    }

    @Test
    void aSlowBodyAfterCompleteHeadersIsNotTimed() throws Exception {
        String body = "{\"username\":\"alice\",\"password\":\"wrong\"}";
        try (Socket socket = connect()) {
            send(socket, "POST /api/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: "
                    + body.length() + "\r\n\r\n");
            for (int i = 0; i < body.length(); i++) { // 35 bytes over 2.5 s
                send(socket, body.substring(i, i + 1));
                Thread.sleep(70);
            }
            String status = response(socket);
            assertTrue(status.startsWith("HTTP/1.1 4"), status); // answered (wrong password), not cut off
        }
    }

    @Test
    void theSecondRequestOfAKeptAliveConnectionIsTimedFromItsFirstByte() throws Exception {
        try (Socket socket = connect()) {
            send(socket, GET);
            assertTrue(response(socket).endsWith(" 200 OK"));
            Thread.sleep(1_500); // longer than the timeout: idle, not timed
            long before = System.nanoTime();
            send(socket, "GET /q/health/live HTTP/1.1\r\nHost: localhost\r\nX-Slow: ");
            long closedAfter = trickleUntilClosed(socket, before, 100, 30_000);
            assertTrue(closedAfter >= 999, "closed " + closedAfter + " ms after its first byte");
        } catch (SocketTimeoutException e) {
            throw new AssertionError(e);
        }
    }
}
