package dev.slidegate.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Limit;
import dev.slidegate.api.Policy;
import dev.slidegate.api.Strategy;
import dev.slidegate.core.DecisionStore;
import dev.slidegate.memory.MemoryStore;
import dev.slidegate.testing.ManualClock;

/**
 * The refusal cache answers exactly what the shared store would: on one random timeline, two caching
 * instances and an instance without a cache share one store, and a second store receives every call
 * uncached; since refusals change nothing, the two stores stay identical exactly when every cached
 * answer was right. A cached refusal names the limit that refused when the store answered, and its
 * retry-after is never later than the store's own at that moment.
 */
class RefusalCacheTest {

    private final ManualClock clock = new ManualClock();

    private long nanos() {
        return clock.nowMicros() * 1000;
    }

    private static Decision call(DecisionStore s, Policy p, String key, int cost) {
        return (p.inFlight() ? s.enter(p, key, 0) : s.acquire(p, key, cost)).toCompletableFuture().join();
    }

    @Test
    void cachedAnswersAreWhatTheStoreWouldAnswerOnRandomTimelines() {
        Random random = new Random(20261123);
        long answeredLocally = 0;
        for (int run = 0; run < 200; run++) {
            MemoryStore shared = new MemoryStore(clock, 10_000);
            MemoryStore uncached = new MemoryStore(clock, 10_000);
            RefusalCache a = new RefusalCache(shared, 1000, this::nanos);
            RefusalCache b = new RefusalCache(shared, 1000, this::nanos);
            Strategy strategy = Strategy.values()[random.nextInt(Strategy.values().length)];
            List<Limit> limits = new ArrayList<>();
            for (int i = 0, n = 1 + random.nextInt(2); i < n; i++) {
                limits.add(Limit.parse((1 + random.nextInt(6)) + "/" + (i + 1) * (100 + random.nextInt(900)) + "ms"));
            }
            Policy p = new Policy("rc" + run, limits, strategy, "ip", false, false, 1 + random.nextInt(10));
            for (int step = 0; step < 300; step++) {
                clock.advanceMicros(random.nextInt(3) == 0 ? 0 : random.nextInt(60_000));
                String key = "k" + random.nextInt(2);
                int cost = 1 + (random.nextInt(4) == 0 ? random.nextInt(3) : 0);
                int who = random.nextInt(3);
                DecisionStore instance = who == 0 ? a : who == 1 ? b : shared;
                long before = a.answeredLocally() + b.answeredLocally();
                Decision cached = call(instance, p, key, cost);
                Decision truth = call(uncached, p, key, cost);
                boolean local = a.answeredLocally() + b.answeredLocally() > before;
                assertEquals(truth.allowed(), cached.allowed(),
                        () -> "run " + p + " step, answered " + (local ? "locally" : "by the store"));
                if (local) {
                    assertTrue(cached.retryAfterMicros() <= truth.retryAfterMicros(),
                            "a local retry-after is never later than the store's: " + cached.retryAfterMicros() + " > "
                                    + truth.retryAfterMicros());
                    answeredLocally++;
                }
            }
        }
        assertTrue(answeredLocally > 1000, "the cache answered " + answeredLocally + " refusals");
    }

    @Test
    void countRejectedPoliciesAreNeverAnsweredLocally() {
        MemoryStore shared = new MemoryStore(clock, 100);
        RefusalCache cache = new RefusalCache(shared, 100, this::nanos);
        Policy p = new Policy("cr", List.of(Limit.parse("1/1m")), Strategy.SLIDING_LOG, "ip", true);
        assertTrue(call(cache, p, "k", 1).allowed());
        for (int i = 0; i < 5; i++) {
            assertFalse(call(cache, p, "k", 1).allowed());
        }
        assertEquals(0, cache.answeredLocally());
        assertEquals(0, cache.size());
    }

    // a full key of a concurrency policy is remembered for 20 ms at most (a slot frees when any call ends), and forgotten
    // at once when a call of the key ends here; never an admission the store would refuse
    @Test
    void aFullKeyOfCallsInFlightIsRememberedBrieflyAndForgottenWhenACallEndsHere() {
        MemoryStore shared = new MemoryStore(clock, 100);
        RefusalCache here = new RefusalCache(shared, 100, this::nanos);
        Policy p = Policy.inFlight("in", 1, 30_000_000L, "ip");
        Decision lease = call(here, p, "k", 1);
        assertTrue(lease.allowed());
        assertFalse(call(here, p, "k", 1).allowed());
        assertFalse(call(here, p, "k", 1).allowed());
        assertEquals(1, here.answeredLocally(), "the second refusal came from memory");
        shared.leave(p, "k", List.of(lease.atMicros())).toCompletableFuture().join(); // ended on another instance
        assertFalse(call(here, p, "k", 1).allowed(), "not seen here for up to 20 ms: refused, never over-admitted");
        clock.advanceMicros(RefusalCache.IN_FLIGHT_MEMORY_NANOS / 1000);
        Decision again = call(here, p, "k", 1);
        assertTrue(again.allowed(), "20 ms later the store is asked again");
        assertFalse(call(here, p, "k", 1).allowed());
        here.leave(p, "k", List.of(again.atMicros())).toCompletableFuture().join(); // ended here: forgotten at once
        assertTrue(call(here, p, "k", 1).allowed());
    }

    @Test
    void refusalsExpireAndAreBoundedInNumber() {
        MemoryStore shared = new MemoryStore(clock, 1000);
        RefusalCache cache = new RefusalCache(shared, 10, this::nanos);
        Policy p = new Policy("bounded", List.of(Limit.parse("1/1s")), Strategy.SLIDING_LOG, "ip", false);
        for (int i = 0; i < 100; i++) {
            call(cache, p, "k" + i, 1);
            assertFalse(call(cache, p, "k" + i, 1).allowed());
        }
        assertTrue(cache.size() <= 10, "size " + cache.size());
        assertFalse(call(cache, p, "k99", 1).allowed());
        assertTrue(cache.answeredLocally() >= 1);
        clock.advanceMicros(1_000_001);
        assertEquals(0, cache.size(), "every refusal expired with its retry-after");
        assertTrue(call(cache, p, "k99", 1).allowed());
    }

    @Test
    void aResetIsSeenAtOnce() {
        MemoryStore shared = new MemoryStore(clock, 100);
        RefusalCache here = new RefusalCache(shared, 100, this::nanos);
        RefusalCache there = new RefusalCache(shared, 100, this::nanos);
        Policy p = new Policy("reset", List.of(Limit.parse("1/1h")), Strategy.FIXED_WINDOW, "ip", false);
        assertTrue(call(here, p, "k", 1).allowed());
        assertFalse(call(here, p, "k", 1).allowed());
        assertFalse(call(there, p, "k", 1).allowed());
        assertFalse(call(there, p, "k", 1).allowed());
        assertEquals(1, there.answeredLocally());
        // a reset as the admin makes it: through the inspection stack, whose hooks reach this instance's refusals
        new dev.slidegate.core.ResetHooks(shared, (policy, key) -> here.forgetAll()).reset(p, "k").toCompletableFuture().join();
        assertTrue(call(here, p, "k", 1).allowed(), "the instance that reset");
        there.forgetAll(); // what the reset announcement does on every other instance (RefusalCacheIT shows it over Redis)
        assertEquals(0, there.size());
    }
}
