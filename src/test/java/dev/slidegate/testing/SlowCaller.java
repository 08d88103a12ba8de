package dev.slidegate.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;

/** A caller on a raw socket who sends its request headers a byte at a time (slowloris), for the header timeout's tests. */
public final class SlowCaller {

    private SlowCaller() {
    }

    /**
     * Whether the server has closed the connection: end of stream or a reset, not a read that times out
     * (the socket needs a short read timeout). Bytes of an earlier response are read past.
     */
    public static boolean closedByServer(Socket socket) {
        try {
            InputStream in = socket.getInputStream();
            while (in.read() >= 0) {
                // bytes of an earlier response
            }
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    /**
     * Writes one byte every {@code pauseMillis} until the server closes the connection, and fails when it is still
     * open {@code giveUpMillis} after {@code startNanos}; the caller's milliseconds from {@code startNanos} until
     * the close.
     */
    public static long trickleUntilClosed(Socket socket, long startNanos, long pauseMillis, long giveUpMillis)
            throws IOException, InterruptedException {
        OutputStream out = socket.getOutputStream();
        while (true) {
            long elapsed = millisSince(startNanos);
            try {
                out.write('a');
                out.flush();
            } catch (IOException e) {
                return elapsed; // the server closed it: reset or broken pipe
            }
            if (closedByServer(socket)) {
                return millisSince(startNanos);
            }
            assertTrue(elapsed < giveUpMillis, "still open after " + elapsed + " ms of trickled headers");
            Thread.sleep(pauseMillis);
        }
    }

    public static long millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }
}
