package dev.slidegate.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.logging.Level;
import java.util.logging.LogRecord;

import org.junit.jupiter.api.Test;

import dev.slidegate.api.Decision;
import dev.slidegate.api.FailMode;
import dev.slidegate.api.Limit;
import dev.slidegate.api.Policy;
import dev.slidegate.api.StoreUnavailableException;
import dev.slidegate.api.Strategy;
import dev.slidegate.core.Breaker;
import dev.slidegate.core.Clock;
import dev.slidegate.core.FallbackStore;
import dev.slidegate.memory.MemoryStore;
import dev.slidegate.testing.LogCapture;
import dev.slidegate.testing.RedisClients;
import dev.slidegate.testing.RedisServer;
import dev.slidegate.testing.Resp;

/** When Redis is frozen or gone: each fail mode, the breaker, its log lines, and no replay of a timed-out call. */
class FailModesTest {

    private static final long COOL_DOWN_MS = 300;

    private static Policy policy(String name, FailMode mode) {
        return new Policy(name, List.of(Limit.parse("4/1m")), Strategy.SLIDING_LOG, "ip", false, false, 10, mode);
    }

    /**
     * What this class's breakers call the store: its log lines are told from those of the classes that run beside it
     * (the Redis scenarios share a JVM, and freeze servers of their own).
     */
    private static final String BREAKER = "Redis of FailModesTest";

    private static FallbackStore store(RedisClients clients, int instances) {
        return new FallbackStore(new RedisStore(clients.dataSource(), Duration.ofMillis(150)),
                new MemoryStore(Clock.system(), 1000), instances,
                new Breaker(BREAKER, 3, Duration.ofMillis(COOL_DOWN_MS).toNanos(), System::nanoTime));
    }

    private static Decision call(FallbackStore s, Policy p, String key) {
        return s.acquire(p, key, 1).toCompletableFuture().join();
    }

    // an operator's reset goes through the admin's inspection stack; its hooks reach the key's local window of
    // the local fail mode on this instance, which then admits again while Redis is still gone
    @Test
    void aResetReachesTheLocalWindowOfTheFailMode() {
        RedisServer server = RedisServer.start();
        try (RedisClients clients = new RedisClients(server)) {
            FallbackStore store = store(clients, 2);
            Policy local = policy("fm-reset", FailMode.LOCAL);
            server.signal("KILL");
            assertTrue(call(store, local, "a").allowed());
            assertTrue(call(store, local, "a").allowed());
            assertFalse(call(store, local, "a").allowed(), "the share of 4 / 2 is used");
            new dev.slidegate.core.ResetHooks(new MemoryStore(Clock.system(), 10), store::forget).reset(local, "a")
                    .toCompletableFuture().join();
            Decision after = call(store, local, "a");
            assertTrue(after.allowed() && after.fallback(), "the reset reached the local window: " + after);
        } finally {
            server.close();
        }
    }

    // what an upstream taught is kept in Redis and in process: with Redis gone, the instance still reads what it kept
    @Test
    void learnedLimitsAreReadInProcessWhileRedisIsGone() {
        RedisServer server = RedisServer.start();
        try (RedisClients clients = new RedisClients(server)) {
            FallbackStore store = store(clients, 2);
            Policy p = policy("fm-learned", FailMode.LOCAL);
            List<Limit> lower = List.of(Limit.parse("2/1m"));
            store.learn(p, "client:x", lower, 60_000_000).toCompletableFuture().join();
            assertEquals(lower, store.learned(p, "client:x").toCompletableFuture().join(), "read from Redis");
            server.signal("KILL");
            assertEquals(lower, store.learned(p, "client:x").toCompletableFuture().join(), "read in process");
            store.learn(p, "client:y", lower, 60_000_000).toCompletableFuture().join(); // kept in process alone
            assertEquals(lower, store.learned(p, "client:y").toCompletableFuture().join());
        } finally {
            server.close();
        }
    }

    // Redis gone (the process killed): open admits, closed refuses with a store error, local limits in
    // process at N / instances (4 / 2 = 2), less what Redis last said was used of the key
    @Test
    void eachFailModeDecidesWhenRedisIsGone() {
        RedisServer server = RedisServer.start();
        try (RedisClients clients = new RedisClients(server)) {
            FallbackStore store = store(clients, 2);
            Policy open = policy("fm-open", FailMode.OPEN);
            Policy closed = policy("fm-closed", FailMode.CLOSED);
            Policy local = policy("fm-local", FailMode.LOCAL);
            assertFalse(call(store, local, "a").fallback(), "Redis decides while it is up");
            server.signal("KILL");
            for (int i = 0; i < 6; i++) {
                Decision d = call(store, open, "a");
                assertTrue(d.allowed() && d.fallback());
            }
            CompletionException e = assertThrows(CompletionException.class, () -> call(store, closed, "a"));
            assertTrue(e.getCause() instanceof StoreUnavailableException, e.toString());
            assertTrue(e.getCause().getMessage().contains("policy 'fm-closed' fails closed"), e.getCause().getMessage());
            int admitted = 0;
            for (int i = 0; i < 5; i++) {
                Decision d = call(store, local, "a");
                assertTrue(d.fallback());
                admitted += d.allowed() ? 1 : 0;
                // the decision reports the limits it was made against, in its fields and its problem text alike
                assertEquals(2, d.policy().limits().get(0).permits(), "the share in force: " + d.policy());
                assertEquals(2, d.states().get(0).limit().permits());
                assertEquals("fm-local", d.policy().name());
            }
            // the share of 4 / 2 = 2, started from what Redis last said of the key: 3 left, ⌊3 / 2⌋ = 1 for this instance
            assertEquals(1, admitted, "in process at 4 / 2 instances, from the 3 Redis said were left");
            int fresh = 0;
            for (int i = 0; i < 5; i++) {
                fresh += call(store, local, "never-seen").allowed() ? 1 : 0;
            }
            assertEquals(2, fresh, "a key Redis never answered for here: the whole share of 4 / 2");
        } finally {
            server.close();
        }
    }

    // Redis frozen (SIGSTOP): calls end at the time budget, the breaker opens after 3 (one WARNING),
    // calls then skip Redis; after it thaws and the cool-down passes, a probe finds it and it is used
    // again (one INFO). A call that timed out is not replayed: after the thaw it counted at most once.
    @Test
    void aFrozenRedisOpensTheBreakerAndItsReturnClosesIt() throws Exception {
        List<LogRecord> logged;
        try (LogCapture log = LogCapture.of("dev.slidegate");
                RedisServer server = RedisServer.start();
                RedisClients clients = new RedisClients(server);
                Resp resp = server.connect()) {
            FallbackStore store = store(clients, 1);
            Policy p = policy("fm-frozen", FailMode.OPEN);
            call(store, p, "warm");
            server.signal("STOP");
            try {
                Decision first = call(store, p, "once"); // queued in the socket, answered by nobody: times out
                assertTrue(first.fallback());
                for (int i = 0; i < 20; i++) {
                    assertTrue(call(store, p, "b").fallback());
                }
                assertEquals(Breaker.State.OPEN, store.breaker().state());
            } finally {
                server.signal("CONT");
            }
            // calls during the cool-down are decided by the fail mode; the first after it probes Redis, which decides again
            Decision back = dev.slidegate.testing.Eventually.eventually(java.time.Duration.ofSeconds(10),
                    () -> call(store, p, "c"), d -> !d.fallback(), "Redis deciding again after the cool-down");
            assertFalse(back.fallback(), "Redis decides again after the cool-down");
            assertEquals(Breaker.State.CLOSED, store.breaker().state());
            // the call that timed out is not sent again: whether the frozen server got to run it or the
            // client dropped it with its connection, it counted at most once
            assertTrue(resp.number("ZCOUNT", "slidegate:{fm-frozen:once}:log", "(0", "+inf") <= 1,
                    "the timed-out call was replayed");
            logged = log.records();
        }
        long warnings = logged.stream()
                .filter(r -> r.getLevel() == Level.WARNING
                        && r.getMessage().startsWith(BREAKER + " failed 3 decisions in a row"))
                .count();
        long recoveries = logged.stream()
                .filter(r -> r.getLevel() == Level.INFO && r.getMessage().startsWith(BREAKER + " answers again"))
                .count();
        assertEquals(1, warnings, "one line when Redis is skipped, not one per request");
        assertEquals(1, recoveries, "one line when it is back");
    }
}
