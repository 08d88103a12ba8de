package dev.slidegate.core;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.slidegate.memory.MemoryStore;
import dev.slidegate.redis.RedisStore;
import dev.slidegate.testing.LoadOracle;
import dev.slidegate.testing.Oracle;
import dev.slidegate.testing.RedisClients;
import dev.slidegate.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The accuracy oracle under load (STYLE.md 6): 8 threads offer 3N per window for 6 windows; the
 * instant the store decided at is recorded for every admitted call. The exact strategies (sliding
 * log; sliding counter, conservatively) must admit at most N in every interval of length W; the log
 * must still admit at least 90% of N per window (exact, not over-cautious). A fixed window keeps N per
 * aligned window but can reach 2N across an edge. The full table for every strategy, store and peer
 * is {@code AccuracyReport}.
 */
class AccuracyTest {

    private static final int N = 100;
    private static final long W = 500_000;

    private static LoadOracle.Attempt on(LimiterStore store, Policy policy) {
        store.acquire(policy, "warm-up", 1).toCompletableFuture().join(); // initialise the client on one thread
        return () -> {
            Decision d = store.acquire(policy, "oracle", 1).toCompletableFuture().join();
            return d.allowed() ? d.atMicros() : -1;
        };
    }

    private static Policy policy(String name, Strategy s) {
        return new Policy(name, List.of(new Limit(N, W)), s, "ip", false);
    }

    private static void assertExact(LoadOracle.Result r, String what, double minFraction) {
        System.out.println(what + ": " + r);
        assertTrue(r.maxInAnyWindow() <= N, what + ": " + r.maxInAnyWindow() + " admitted in one window of " + W / 1000 + " ms");
        assertTrue(r.meanFraction() >= minFraction, what + ": only " + r.meanFraction() + " N admitted per window on average");
    }

    @Test
    void memorySlidingLogIsExact() throws InterruptedException {
        MemoryStore store = new MemoryStore(Clock.system(), 1000);
        assertExact(LoadOracle.offer(on(store, policy("acc-mem", Strategy.SLIDING_LOG)), N, W, 6, 8), "memory sliding-log", 0.9);
    }

    @Test
    void redisSlidingLogIsExact() throws InterruptedException {
        try (RedisServer server = RedisServer.start(); RedisClients clients = new RedisClients(server)) {
            RedisStore store = new RedisStore(clients.dataSource(), Duration.ofSeconds(5));
            assertExact(LoadOracle.offer(on(store, policy("acc-redis", Strategy.SLIDING_LOG)), N, W, 6, 8), "redis sliding-log", 0.9);
        }
    }

    @Test
    void slidingCounterNeverExceedsN() throws InterruptedException {
        MemoryStore store = new MemoryStore(Clock.system(), 1000);
        assertExact(LoadOracle.offer(on(store, policy("acc-sc", Strategy.SLIDING_COUNTER)), N, W, 6, 8), "memory sliding-counter", 0.75);
    }

    @Test
    void fixedWindowKeepsNPerAlignedWindow() throws InterruptedException {
        MemoryStore store = new MemoryStore(Clock.system(), 1000);
        Policy p = policy("acc-fw", Strategy.FIXED_WINDOW);
        List<Long> admitted = new ArrayList<>();
        LoadOracle.Result r = LoadOracle.offer(() -> {
            Decision d = store.acquire(p, "oracle", 1).toCompletableFuture().join();
            if (d.allowed()) {
                synchronized (admitted) {
                    admitted.add(d.atMicros());
                }
            }
            return d.allowed() ? d.atMicros() : -1;
        }, N, W, 6, 8);
        long[] instants = admitted.stream().mapToLong(Long::longValue).toArray();
        long first = Arrays.stream(instants).min().orElseThrow();
        int[] aligned = Oracle.perWindow(instants, first - first % W, W, 7);
        System.out.println("memory fixed-window: " + r + ", per aligned window " + Arrays.toString(aligned));
        assertTrue(Arrays.stream(aligned).allMatch(c -> c <= N), Arrays.toString(aligned));
        assertTrue(r.maxInAnyWindow() <= 2 * N, "max " + r.maxInAnyWindow());
    }
}
