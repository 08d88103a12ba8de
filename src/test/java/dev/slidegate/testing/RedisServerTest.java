package dev.slidegate.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The fixture talks only to servers it started. */
class RedisServerTest {

    // the server answering a started fixture is its own process
    @Test
    void theServerAnsweringIsTheOneStarted() {
        try (RedisServer server = RedisServer.start(); Resp r = server.connect()) {
            assertEquals(server.pid(), RedisServer.processId(String.valueOf(r.call("INFO", "server"))));
        }
    }

    // starting on a port another server holds fails, naming the port, instead of handing out the other server
    @Test
    void aPortHeldByAnotherServerIsRefused() {
        try (RedisServer holder = RedisServer.start()) {
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> RedisServer.startOn(holder.port()).close());
            assertTrue(e.getMessage().contains(Integer.toString(holder.port())), e.getMessage());
        }
    }
}
