package dev.slidegate.bench;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import com.google.common.util.concurrent.RateLimiter;

import dev.slidegate.api.Limit;
import dev.slidegate.api.Policy;
import dev.slidegate.api.Strategy;
import dev.slidegate.core.Clock;
import dev.slidegate.core.DecisionBuffer;
import dev.slidegate.memory.MemoryStore;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.github.resilience4j.ratelimiter.internal.AtomicRateLimiter;
import io.smallrye.faulttolerance.core.rate.limit.TimeWindow;
import io.smallrye.faulttolerance.core.stopwatch.SystemStopwatch;

/**
 * One rate-limit decision in process, Slidegate's memory store beside its peers (run by
 * {@link InProcessBenchmark}). Slidegate's store finds the caller's window by its String key itself
 * ({@code tryAcquire}; {@code sliding-log-decision} is the full {@code decide} with the limit states the
 * service turns into headers, written into a {@link DecisionBuffer} each thread keeps; any strategy's name followed by
 * {@code -decision} measures its {@code decide}, and by {@code -record} its {@code decide} that returns a new
 * {@link dev.slidegate.api.Decision}). The peers are measured two ways ({@link #view}): {@code map}, their
 * limiters in a {@link ConcurrentHashMap} by the same String keys, as a service limiting per caller would
 * keep them, so every implementation does the same work; and {@code bare}, their limiters in an array
 * indexed by the caller's number (one limiter for one key), the peer's decision alone.
 */
@State(Scope.Benchmark)
public class InProcessBench {

    /** The implementation: a Slidegate strategy, or a peer. */
    @Param({ "sliding-log", "sliding-log-decision", "fixed-window", "sliding-counter", "token-bucket", "bucket4j", "guava",
            "resilience4j", "smallrye-rolling" })
    public String impl;

    /** How a peer's limiters are found: by String key in a map, or bare (an array by the caller's number). */
    @Param({ "map", "bare" })
    public String view;

    /** The limit per second: 100 refuses nearly every call, 10 000 000 admits most. */
    @Param({ "100", "10000000" })
    public int perSecond;

    /** How many keys the calls are spread over, round robin. */
    @Param({ "1", "10000" })
    public int keys;

    /**
     * How each thread picks its next key: {@code round-robin} walks them in order from its own position; {@code random}
     * draws each uniformly (xorshift), as independent callers arrive.
     */
    @Param({ "round-robin" })
    public String walk;

    String[] names;
    Predicate<String> decide;

    @Setup(Level.Trial)
    public void setUp() {
        random = "random".equals(walk);
        names = new String[keys];
        for (int i = 0; i < keys; i++) {
            names[i] = "caller-" + i;
        }
        decide = switch (impl) {
            case "bucket4j" -> peer(k -> Bucket.builder()
                    .addLimit(Bandwidth.builder().capacity(perSecond).refillGreedy(perSecond, Duration.ofSeconds(1)).build())
                    .build(),
                    b -> b.tryConsume(1));
            case "guava" -> peer(k -> RateLimiter.create(perSecond), RateLimiter::tryAcquire);
            case "resilience4j" -> peer(k -> new AtomicRateLimiter(k, RateLimiterConfig.custom().limitForPeriod(perSecond)
                    .limitRefreshPeriod(Duration.ofSeconds(1)).timeoutDuration(Duration.ZERO).build()),
                    AtomicRateLimiter::acquirePermission);
            // SmallRye Fault Tolerance's @RateLimit(type = ROLLING): a ring of the last N instants (ms) per limiter
            case "smallrye-rolling" -> peer(k -> TimeWindow.createRolling(SystemStopwatch.INSTANCE, perSecond, 1000, 0),
                    w -> w.record() == 0);
            // reference floors, not peers (docs/BENCHMARKS.md): what any limiter in a map pays before deciding anything
            case "floor-lookup" -> peer(k -> new Floor(), f -> System.nanoTime() >= f.end);
            case "floor-window" -> peer(k -> new Floor(), f -> f.tryAcquire(perSecond));
            default -> slidegate(impl);
        };
        for (String n : names) { // every key exists before measuring
            decide.test(n);
        }
    }

    /**
     * {@code sliding-log}: tryAcquire; {@code sliding-log-decision}: decide into a buffer; {@code sliding-log-record}: a new
     * Decision.
     */
    private Predicate<String> slidegate(String name) {
        if (name.equals("sliding-log-ahead")) {
            return ahead();
        }
        String[] parts = name.split("-(?=decision$|record$)");
        MemoryStore store = new MemoryStore(Clock.system(), Math.max(100_000, keys * 2));
        Policy policy = new Policy("bench", List.of(new Limit(perSecond, 1_000_000)), Strategy.parse(parts[0]), "global",
                false);
        if (parts.length == 1) {
            return k -> store.tryAcquire(policy, k, 1);
        }
        if (parts[1].equals("record")) {
            return k -> store.decide(policy, k, 1).allowed();
        }
        buffered = store;
        bufferedPolicy = policy;
        DecisionBuffer setUp = new DecisionBuffer();
        return k -> {
            store.decide(policy, k, 1, setUp);
            return setUp.allowed();
        };
    }

    /**
     * {@code sliding-log-ahead} (not in the default grid: {@code -Dbench.impl=sliding-log-ahead,sliding-log-record}): a hot
     * key's call admitted on the Redis stack's local path ({@link dev.slidegate.core.HotKeys}) from a batch taken ahead,
     * a new Decision each as {@code -record}; the batches come from a stand-in of Redis that grants at once, so what is
     * measured is the local path alone (a take every 10 000 calls at most).
     */
    private Predicate<String> ahead() {
        MemoryStore store = new MemoryStore(Clock.system(), Math.max(100_000, keys * 2));
        Policy policy = new Policy("bench", List.of(new Limit(perSecond, 1_000_000)), Strategy.SLIDING_LOG, "global",
                false);
        dev.slidegate.core.PermitsAhead granting = new dev.slidegate.core.PermitsAhead() {
            @Override
            public java.util.concurrent.CompletionStage<dev.slidegate.core.PermitsAhead.Taken> takeAhead(Policy p,
                    String key, int cost, int most, long usableMicros) {
                long now = Clock.system().nowMicros();
                dev.slidegate.api.Decision d = new dev.slidegate.api.Decision(p, true, -1, 0, now,
                        List.of(new dev.slidegate.api.LimitState(p.limits().get(0), perSecond - most, 1_000_000)), false, 0);
                return java.util.concurrent.CompletableFuture
                        .completedFuture(new dev.slidegate.core.PermitsAhead.Taken(d, most, now + usableMicros));
            }

            @Override
            public java.util.concurrent.CompletionStage<Integer> giveBack(Policy p, String key, long takenAtMicros, int from,
                    int to) {
                return java.util.concurrent.CompletableFuture.completedFuture(to - from + 1);
            }
        };
        dev.slidegate.core.HotKeys hot = new dev.slidegate.core.HotKeys(store, granting, System::nanoTime, () -> 1,
                n -> false);
        return k -> hot.acquire(policy, k, 1).toCompletableFuture().join().allowed();
    }

    /**
     * The store and policy of a {@code -decision} implementation, decided into each thread's buffer; {@code null} otherwise.
     */
    MemoryStore buffered;
    Policy bufferedPolicy;

    private <L> Predicate<String> peer(java.util.function.Function<String, L> create, Predicate<L> tryAcquire) {
        ConcurrentHashMap<String, L> limiters = new ConcurrentHashMap<>();
        @SuppressWarnings("unchecked")
        L[] byNumber = (L[]) new Object[keys];
        for (int i = 0; i < keys; i++) {
            L limiter = create.apply(names[i]);
            limiters.put(names[i], limiter);
            byNumber[i] = limiter;
        }
        if ("bare".equals(view)) {
            bare = i -> tryAcquire.test(byNumber[i]);
        }
        return k -> tryAcquire.test(limiters.get(k));
    }

    boolean random;

    /** A peer's decision by the caller's number, in the bare view; {@code null} otherwise. */
    java.util.function.IntPredicate bare;

    /**
     * The least an exact limiter found in a map can do: {@code floor-lookup} finds the key's object and reads the
     * clock, deciding nothing; {@code floor-window} adds a fixed window of one second under the object's monitor (a
     * count and the window's end), the smallest exact decision. Reference lines for the ratios, not peers.
     */
    static final class Floor {
        long end;
        long count;

        boolean tryAcquire(int perSecond) {
            long now = System.nanoTime() / 1000;
            synchronized (this) {
                if (now >= end) {
                    end = (now / 1_000_000 + 1) * 1_000_000;
                    count = 0;
                }
                if (count < perSecond) {
                    count++;
                    return true;
                }
                return false;
            }
        }
    }

    /** Each thread walks the keys from its own position. */
    @State(Scope.Thread)
    public static class Cursor {
        int next = (int) (Thread.currentThread().getId() * 7919);
        long seed = Thread.currentThread().getId() * 0x9E3779B97F4A7C15L | 1;
        final DecisionBuffer buffer = new DecisionBuffer();
    }

    @Benchmark
    public boolean decide(Cursor cursor) {
        String[] n = names;
        int k;
        if (random) {
            long x = cursor.seed;
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            cursor.seed = x;
            k = (int) (((x >>> 32) * n.length) >>> 32);
        } else {
            int i = cursor.next++;
            k = (i & Integer.MAX_VALUE) % n.length;
        }
        MemoryStore s = buffered;
        if (s != null) {
            s.decide(bufferedPolicy, n[k], 1, cursor.buffer);
            return cursor.buffer.allowed();
        }
        java.util.function.IntPredicate b = bare;
        return b != null ? b.test(k) : decide.test(n[k]);
    }
}
