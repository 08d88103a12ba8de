package dev.slidegate.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;

/**
 * A caller who sends its request headers a byte at a time (slowloris) is cut off after the shipped
 * {@code slidegate.http.header-timeout} (10 s), measured by the caller's clock from before it connects,
 * while other callers are answered; on today's Vert.x such a connection was never closed.
 */
@QuarkusTest
@TestProfile(SmallLimits.class)
class HeaderTimeoutTest {

    static final long SHIPPED_TIMEOUT_MILLIS = 10_000;

    static Socket connect() throws IOException {
        int port = ConfigProvider.getConfig().getValue("quarkus.http.test-port", Integer.class);
        Socket socket = new Socket("localhost", port);
        socket.setSoTimeout(50);
        return socket;
    }

    /** Whether the server has closed the connection: end of stream or a reset, not a read that times out. */
    static boolean closedByServer(Socket socket) {
        try {
            InputStream in = socket.getInputStream();
            while (true) {
                int b = in.read();
                if (b < 0) {
                    return true;
                }
                // bytes of an earlier response: read past them
            }
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    /** Writes one byte every {@code pauseMillis} until the server closes; the caller's milliseconds until then. */
    static long trickleUntilClosed(Socket socket, long startNanos, long pauseMillis, long giveUpMillis)
            throws InterruptedException {
        OutputStream out;
        try {
            out = socket.getOutputStream();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        while (true) {
            long elapsed = (System.nanoTime() - startNanos) / 1_000_000;
            try {
                out.write('a');
                out.flush();
            } catch (IOException e) {
                return elapsed; // the server closed it: reset or broken pipe
            }
            if (closedByServer(socket)) {
                return (System.nanoTime() - startNanos) / 1_000_000;
            }
            assertTrue(elapsed < giveUpMillis, "still open after " + elapsed + " ms of trickled headers");
            Thread.sleep(pauseMillis);
        }
    }

    @Test
    void aCallerTricklingItsHeadersIsCutOffWhileOthersAreAnswered() throws Exception {
        long before = System.nanoTime();
        try (Socket slow = connect()) {
            slow.getOutputStream()
                    .write("GET /api/products HTTP/1.1\r\nHost: localhost\r\nX-Slow: ".getBytes(StandardCharsets.US_ASCII));
            List<Integer> others = new ArrayList<>();
            Thread answered = new Thread(() -> {
                for (int i = 0; i < 3; i++) {
                    others.add(RestAssured.get("/q/health/live").statusCode());
                }
            });
            answered.start();
            long closedAfter = trickleUntilClosed(slow, before, 500, 60_000);
            answered.join();
            assertTrue(closedAfter >= SHIPPED_TIMEOUT_MILLIS - 1,
                    "closed after " + closedAfter + " ms, before the caller had its 10 s");
            assertEquals(List.of(200, 200, 200), others, "other callers are answered meanwhile");
        }
        assertEquals(200, RestAssured.get("/q/health/live").statusCode());
    }
}
