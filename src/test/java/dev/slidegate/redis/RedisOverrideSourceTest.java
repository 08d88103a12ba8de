package dev.slidegate.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletionException;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import dev.slidegate.api.Limit;
import dev.slidegate.api.LimitOverride;
import dev.slidegate.core.OverrideChanges.Changes;
import dev.slidegate.core.TooManyOverridesException;
import dev.slidegate.testing.RedisClients;
import dev.slidegate.testing.RedisServer;
import dev.slidegate.testing.Resp;

/**
 * Overrides in Redis as two instances share them: each change is recorded with a version, and an instance reads only
 * what changed since the version it holds; it reads everything when the record cannot say (Redis lost it, or trimmed
 * changes it had not seen); the count is bounded atomically.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisOverrideSourceTest {

    private final RedisServer server = RedisServer.start();
    private final RedisClients clients = new RedisClients(server);

    @AfterAll
    void stop() {
        clients.close();
        server.close();
    }

    @BeforeEach
    void empty() {
        try (Resp r = server.connect()) {
            r.call("FLUSHALL");
        }
    }

    private RedisOverrideSource instance(int most) {
        return new RedisOverrideSource(clients.dataSource(), clients.vertx().getDelegate(), Duration.ofMillis(250),
                Duration.ofSeconds(5), most, KEPT);
    }

    /** The changes the record keeps here (the service's keeps {@link RedisOverrideSource#KEPT_CHANGES}). */
    private static final int KEPT = 100;

    private static LimitOverride limit(String key, String limit) {
        return new LimitOverride(new LimitOverride.Target("reports", null, key), List.of(Limit.parse(limit)), false, false,
                null, "r".repeat(480), "admin", Instant.parse("2026-11-25T00:00:00Z"));
    }

    private static <T> T join(java.util.concurrent.CompletionStage<T> stage) {
        return stage.toCompletableFuture().join();
    }

    // one instance changes, the other reads exactly the targets changed since the version it holds
    @Test
    void anInstanceReadsOnlyWhatChanged() {
        RedisOverrideSource a = instance(100);
        RedisOverrideSource b = instance(100);
        for (int i = 0; i < 50; i++) {
            join(a.save(limit("hdr:k" + i, "5/1m")));
        }
        Changes all = join(b.since(-1));
        assertTrue(all.complete());
        assertEquals(50, all.set().size());
        assertEquals(50, all.version());
        join(a.save(limit("hdr:k7", "9/1m")));
        join(a.remove(new LimitOverride.Target("reports", null, "hdr:k8")));
        join(a.save(limit("hdr:new", "1/1m")));
        Changes changed = join(b.since(all.version()));
        assertFalse(changed.complete());
        assertEquals(53, changed.version());
        assertEquals(List.of("hdr:k7", "hdr:new"), changed.set().stream().map(o -> o.target().key()).sorted().toList());
        assertEquals(List.of(new LimitOverride.Target("reports", null, "hdr:k8")), changed.removed());
        assertEquals(List.of(Limit.parse("9/1m")),
                changed.set().stream().filter(o -> o.target().key().equals("hdr:k7")).findFirst().orElseThrow().limits());
        Changes none = join(b.since(changed.version()));
        assertEquals(new Changes(53, List.of(), List.of(), false), none);
        assertTrue(join(b.holds(50)));
        assertFalse(join(b.holds(49)));
    }

    // a Redis that lost its record (restarted empty, flushed) or trimmed changes an instance had not seen: everything
    @Test
    void anInstanceReadsEverythingWhenTheRecordCannotSay() {
        RedisOverrideSource a = instance(100_000);
        join(a.save(limit("hdr:x", "5/1m")));
        join(a.save(limit("hdr:y", "5/1m")));
        try (Resp r = server.connect()) {
            r.call("DEL", RedisOverrideSource.CHANGES);
        }
        join(a.save(limit("hdr:z", "5/1m"))); // version 1 again: behind an instance that held 2
        Changes back = join(a.since(2));
        assertTrue(back.complete());
        assertEquals(3, back.set().size());
        for (int i = 0; i < KEPT + 5; i++) { // every change recorded, the oldest trimmed
            join(a.remove(new LimitOverride.Target("reports", null, "hdr:gone" + i)));
        }
        assertTrue(join(a.since(back.version())).complete(), "changes trimmed before being read: everything");
        assertFalse(join(a.since(back.version() + 10)).complete(), "changes all kept: only those");
    }

    // beyond the most overrides, a new target is refused atomically, nothing changed; a replacement is not refused
    @Test
    void theCountIsBounded() {
        RedisOverrideSource a = instance(3);
        for (int i = 0; i < 3; i++) {
            join(a.save(limit("hdr:k" + i, "5/1m")));
        }
        CompletionException e = org.junit.jupiter.api.Assertions.assertThrows(CompletionException.class,
                () -> join(a.save(limit("hdr:k3", "5/1m"))));
        assertTrue(e.getCause() instanceof TooManyOverridesException, e.toString());
        assertTrue(e.getCause().getMessage().contains("slidegate.overrides.max"), e.getCause().getMessage());
        join(a.save(limit("hdr:k0", "6/1m")));
        assertEquals(3, join(a.load()).size());
        join(a.remove(new LimitOverride.Target("reports", null, "hdr:k1")));
        join(a.save(limit("hdr:k3", "5/1m")));
        assertEquals(3, join(a.load()).size());
    }

    // an expired override is removed only as it was: one set again meanwhile stays
    @Test
    void anExpiredOverrideIsRemovedUnlessReplaced() {
        RedisOverrideSource a = instance(100);
        LimitOverride old = limit("hdr:e", "5/1m");
        join(a.save(old));
        join(a.save(limit("hdr:e", "7/1m")));
        join(a.expire(old));
        assertEquals(1, join(a.load()).size());
        join(a.expire(limit("hdr:e", "7/1m")));
        assertEquals(0, join(a.load()).size());
    }
}
