package dev.slidegate.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** Free loopback ports for the processes tests start: never 6379, where a Redis the tests did not start may listen. */
public final class Ports {

    /**
     * Every port handed out in this JVM: two callers asking at once (a fleet of instances started side by side) could
     * otherwise be given the same port, free again as soon as it was probed (seen once: two instances of one fleet on
     * one port, 2026-11-27).
     */
    private static final Set<Integer> GIVEN = ConcurrentHashMap.newKeySet();

    private Ports() {
    }

    /**
     * A port no process listens on now and that this JVM has not handed out before (another process may take it before
     * the caller does: callers retry).
     */
    public static int free() {
        while (true) {
            int port;
            try (ServerSocket s = new ServerSocket(0)) {
                port = s.getLocalPort();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            if (port != 6379 && GIVEN.add(port)) {
                return port;
            }
        }
    }
}
