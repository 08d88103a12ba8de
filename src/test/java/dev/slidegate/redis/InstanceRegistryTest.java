package dev.slidegate.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.slidegate.testing.RedisClients;
import dev.slidegate.testing.RedisServer;

/** Instances count each other through a real Redis, and keep the last count while it is away. */
class InstanceRegistryTest {

    private static final Duration EVERY = Duration.ofMillis(100);
    private static final Duration TTL = Duration.ofMillis(400);
    private static final Duration TIMEOUT = Duration.ofSeconds(1);

    private static void awaitCount(InstanceRegistry r, int expected) throws InterruptedException {
        long until = System.nanoTime() + 5_000_000_000L;
        while (r.getAsInt() != expected && System.nanoTime() < until) {
            Thread.sleep(20);
        }
        assertEquals(expected, r.getAsInt());
    }

    // a Redis restarted empty (after an outage longer than the TTL) forgets every entry: until the
    // others have renewed theirs, the count does not drop (a lower count would give this instance too
    // big a share for the fail mode local)
    @Test
    void aRedisRestartedEmptyDoesNotShrinkTheCountAtOnce() throws InterruptedException {
        RedisServer first = RedisServer.start();
        int port = first.port();
        RedisServer second = null;
        try (RedisClients clients = new RedisClients(first)) {
            Duration ttl = Duration.ofSeconds(1);
            InstanceRegistry a = new InstanceRegistry(clients.dataSource(), clients.vertx(), EVERY, ttl, TIMEOUT,
                    System::nanoTime);
            try (dev.slidegate.testing.Resp resp = first.connect()) {
                resp.call("ZADD", InstanceRegistry.KEY, "99999999999999", "another-instance-that-is-slow-to-renew");
            }
            awaitCount(a, 2);
            first.close();
            Thread.sleep(ttl.toMillis() + 500); // away for longer than the TTL
            second = RedisServer.startOn(port);
            try (dev.slidegate.testing.Resp resp = second.connect()) {
                long until = System.nanoTime() + 3_000_000_000L;
                while (resp.number("EXISTS", InstanceRegistry.KEY) == 0 && System.nanoTime() < until) {
                    Thread.sleep(10);
                }
                Thread.sleep(2 * EVERY.toMillis()); // two more renewals, each counting 1
                assertEquals(1L, resp.number("ZCARD", InstanceRegistry.KEY), "a renewed alone");
            }
            assertEquals(2, a.getAsInt(), "the count dropped before the others could renew");
            a.close();
        } finally {
            if (second != null) {
                second.close();
            }
        }
    }

    // a registers (1); b registers (2 at once; a learns it within a renewal); c too (3); b leaves cleanly
    // (2 again); then Redis is killed: a keeps its last count
    @Test
    void instancesCountEachOtherAndKeepTheLastCountWhileRedisIsAway() throws InterruptedException {
        RedisServer server = RedisServer.start();
        try (RedisClients clients = new RedisClients(server)) {
            InstanceRegistry a = new InstanceRegistry(clients.dataSource(), clients.vertx(), EVERY, TTL, TIMEOUT,
                    System::nanoTime);
            assertEquals(1, a.getAsInt());
            InstanceRegistry b = new InstanceRegistry(clients.dataSource(), clients.vertx(), EVERY, TTL, TIMEOUT,
                    System::nanoTime);
            assertEquals(2, b.getAsInt(), "b counts a and itself at once");
            awaitCount(a, 2);
            InstanceRegistry c = new InstanceRegistry(clients.dataSource(), clients.vertx(), EVERY, TTL, TIMEOUT,
                    System::nanoTime);
            awaitCount(a, 3);
            b.close();
            awaitCount(a, 2); // a lower count once it has lasted a TTL
            server.signal("KILL");
            Thread.sleep(3 * EVERY.toMillis());
            assertEquals(2, a.getAsInt(), "the last count is kept while Redis is away");
            a.close();
            c.close();
        } finally {
            server.close();
        }
    }
}
