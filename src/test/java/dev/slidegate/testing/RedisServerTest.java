package dev.slidegate.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.FileOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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

    // a binary still open for writing somewhere (as when another test thread forks while the bundled binary is
    // unpacked) cannot be executed (ETXTBSY); the fixture starts it once the writer lets go, instead of failing
    @Test
    void aBinaryBusyForAMomentStillStarts(@TempDir Path dir) throws Exception {
        Path copy = dir.resolve("redis-server-copy");
        Files.copy(Paths.get(RedisServer.defaultBinary()), copy, StandardCopyOption.COPY_ATTRIBUTES);
        assertTrue(copy.toFile().setExecutable(true));
        FileOutputStream writer = new FileOutputStream(copy.toFile(), true);
        CompletableFuture<Void> letGo = CompletableFuture.runAsync(() -> {
            RedisServer.sleep(300);
            try {
                writer.close();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        try (RedisServer server = RedisServer.start(copy.toString()); Resp r = server.connect()) {
            assertEquals("PONG", r.call("PING"));
        } finally {
            letGo.join();
        }
    }
}
