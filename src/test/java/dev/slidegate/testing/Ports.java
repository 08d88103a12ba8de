package dev.slidegate.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;

/** Free loopback ports for the processes tests start: never 6379, where a Redis the tests did not start may listen. */
public final class Ports {

    private Ports() {
    }

    /** A port no process listens on now (another may take it before the caller does: callers retry). */
    public static int free() {
        try (ServerSocket s = new ServerSocket(0)) {
            int port = s.getLocalPort();
            return port == 6379 ? free() : port;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
