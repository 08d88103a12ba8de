package dev.slidegate.core;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.slidegate.memory.MemoryStore;
import dev.slidegate.redis.RedisStore;
import dev.slidegate.testing.Oracle;
import dev.slidegate.testing.RedisClients;
import dev.slidegate.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * The accuracy oracle under load (STYLE.md 6): 8 threads offer 3N per window for 6 windows; the
 * instant the store decided at is recorded for every admitted call. The sliding log must admit at
 * most N in every interval of length W, and still at least 90% of N per window (exact, not
 * over-cautious). A fixed window keeps N per aligned window but can reach 2N across an edge.
 */
class AccuracyTest {

    private static final int N = 100;
    private static final long W = 500_000;
    private static final int THREADS = 8;
    private static final int WINDOWS = 6;

    private static long[] offerLoad(LimiterStore store, Policy policy) throws InterruptedException {
        // one call first, on one thread: outside Quarkus the Redis client initialises context propagation lazily
        store.acquire(policy, "warm-up", 1).toCompletableFuture().join();
        ConcurrentLinkedQueue<Long> admitted = new ConcurrentLinkedQueue<>();
        long perThread = 3L * N * WINDOWS / THREADS;
        long intervalNanos = W * 1000 * WINDOWS / perThread;
        CountDownLatch done = new CountDownLatch(THREADS);
        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            long offset = intervalNanos * t / THREADS;
            Thread th = new Thread(() -> {
                for (long i = 0; i < perThread; i++) {
                    long due = start + offset + i * intervalNanos;
                    long wait = due - System.nanoTime();
                    if (wait > 0) {
                        LockSupport.parkNanos(wait);
                    }
                    Decision d = store.acquire(policy, "oracle", 1).toCompletableFuture().join();
                    if (d.allowed()) {
                        admitted.add(d.atMicros());
                    }
                }
                done.countDown();
            });
            th.start();
            threads.add(th);
        }
        assertTrue(done.await(60, TimeUnit.SECONDS), "load did not finish");
        return admitted.stream().mapToLong(Long::longValue).toArray();
    }

    private static void assertExactAndNotOverCautious(long[] admitted, String what) {
        int max = Oracle.maxInAnyWindow(admitted, W);
        long first = Arrays.stream(admitted).min().orElseThrow();
        int[] per = Oracle.perWindow(admitted, first, W, WINDOWS - 1);
        double mean = Arrays.stream(per).average().orElse(0);
        System.out.printf("%s: max in any %d ms window = %d (N = %d); admitted per window %s, mean %.1f%n", what, W / 1000, max, N,
                Arrays.toString(per), mean);
        assertTrue(max <= N, what + ": " + max + " admitted in one window of " + W / 1000 + " ms");
        assertTrue(mean >= 0.9 * N, what + ": only " + mean + " admitted per window on average");
    }

    @Test
    void memorySlidingLogIsExact() throws InterruptedException {
        MemoryStore store = new MemoryStore(Clock.system(), 1000);
        Policy p = new Policy("acc-mem", List.of(new Limit(N, W)), Strategy.SLIDING_LOG, "ip", false);
        assertExactAndNotOverCautious(offerLoad(store, p), "memory sliding-log");
    }

    @Test
    void redisSlidingLogIsExact() throws InterruptedException {
        try (RedisServer server = RedisServer.start(); RedisClients clients = new RedisClients(server)) {
            RedisStore store = new RedisStore(clients.dataSource(), Duration.ofSeconds(5));
            Policy p = new Policy("acc-redis", List.of(new Limit(N, W)), Strategy.SLIDING_LOG, "ip", false);
            assertExactAndNotOverCautious(offerLoad(store, p), "redis sliding-log");
        }
    }

    @Test
    void fixedWindowKeepsNPerAlignedWindow() throws InterruptedException {
        MemoryStore store = new MemoryStore(Clock.system(), 1000);
        Policy p = new Policy("acc-fw", List.of(new Limit(N, W)), Strategy.FIXED_WINDOW, "ip", false);
        long[] admitted = offerLoad(store, p);
        long first = Arrays.stream(admitted).min().orElseThrow();
        int[] per = Oracle.perWindow(admitted, first - first % W, W, WINDOWS + 1);
        int max = Oracle.maxInAnyWindow(admitted, W);
        System.out.printf("memory fixed-window: per aligned window %s, max in any window %d%n", Arrays.toString(per), max);
        assertTrue(Arrays.stream(per).allMatch(c -> c <= N), Arrays.toString(per));
        assertTrue(max <= 2 * N, "max " + max);
    }
}
