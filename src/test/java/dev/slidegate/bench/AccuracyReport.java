package dev.slidegate.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;

import com.google.common.util.concurrent.RateLimiter;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Limit;
import dev.slidegate.api.Policy;
import dev.slidegate.api.Strategy;
import dev.slidegate.core.Clock;
import dev.slidegate.core.LimiterStore;
import dev.slidegate.memory.MemoryStore;
import dev.slidegate.redis.RedisLayout;
import dev.slidegate.redis.RedisStore;
import dev.slidegate.testing.LoadOracle;
import dev.slidegate.testing.RedisClients;
import dev.slidegate.testing.RedisServer;
import dev.slidegate.testing.Resp;
import io.github.bucket4j.Bucket;

/**
 * The accuracy table of docs/strategies.md: every strategy on both stores, and Bucket4j and Guava's
 * RateLimiter as references, under the same loads (8 threads pacing 3N per window for 10 windows; 4
 * threads hammering, an idle pause, hammering again), every grant judged by the bracket oracle on
 * the caller's clock; then Redis {@code MEMORY USAGE} per key at saturation. Run it with
 *
 * <pre>
 * ./mvnw test -Dtest=AccuracyReport
 * </pre>
 *
 * (not part of the suite: its name does not end in Test; {@code AccuracyReportSmokeTest} runs it
 * small). It writes {@code target/accuracy.md}. Settings: {@code -Daccuracy.n=100},
 * {@code -Daccuracy.window-ms=500}, {@code -Daccuracy.windows=10}, {@code -Daccuracy.hammer-ms=3000},
 * {@code -Daccuracy.memory-n=100,10000}.
 */
public class AccuracyReport {

    @Test
    void report() throws Exception {
        int n = Integer.getInteger("accuracy.n", 100);
        long w = Long.getLong("accuracy.window-ms", 500) * 1000;
        int windows = Integer.getInteger("accuracy.windows", 10);
        List<Integer> memoryN = java.util.Arrays.stream(System.getProperty("accuracy.memory-n", "100,10000").split(","))
                .map(String::trim).map(Integer::valueOf).toList();
        String table = run(n, w, windows, Long.getLong("accuracy.hammer-ms", 3000), memoryN, 2_000_000);
        Path out = Path.of("target", "accuracy.md");
        Files.createDirectories(out.getParent());
        Files.writeString(out, table);
        System.out.println(table);
    }

    /**
     * Measures everything and returns the Markdown tables; the memory table fills windows of {@code memoryWindowMicros}
     * (the figures depend on the spread's share of the window, not on its length).
     */
    public static String run(int n, long w, int windows, long hammerMillis, List<Integer> memoryN, long memoryWindowMicros)
            throws InterruptedException, IOException {
        long hammerNanos = hammerMillis * 1_000_000;
        StringBuilder md = new StringBuilder();
        md.append(String.format(Locale.ROOT,
                "Limit %d per %d ms. Every grant is bracketed on the caller's clock (just before and just "
                        + "after the call). **Paced**: 8 threads offer %d calls per window for %d windows. **Hammered**: 4 threads call back to "
                        + "back for %d ms, rest %d ms, then again for %d ms. *Max provable* = most grants whose whole bracket lies in one %d ms "
                        + "interval (the bound; a limiter's wrong timestamps cannot hide a grant, a descheduled caller cannot fake one); "
                        + "*max by answer* = most grants answered in one such interval (what a naive count sees); mean = grants per window / N.%n%n",
                n, w / 1000, 3 * n, windows, hammerNanos / 1_000_000, w * 6 / 5 / 1000, 2 * w / 1000, w / 1000));
        md.append(
                "| limiter | store | paced: max provable | paced: max by answer | paced: mean per window | hammered: max provable |\n"
                        + "|---|---|---|---|---|---|\n");
        try (RedisServer server = RedisServer.start(); RedisClients clients = new RedisClients(server)) {
            RedisStore redis = new RedisStore(clients.dataSource(), Duration.ofSeconds(5));
            for (Strategy s : Strategy.values()) {
                for (LimiterStore store : List.of(new MemoryStore(Clock.system(), 1000), redis)) {
                    String name = "acc-" + s.configName() + "-" + store.name();
                    Policy paced = new Policy(name, List.of(new Limit(n, w)), s, "ip", false);
                    Policy hammered = new Policy(name + "-h", List.of(new Limit(n, w)), s, "ip", false);
                    row(md, "Slidegate " + s.configName(), store.name() + (store == redis ? " " + server.version() : ""),
                            LoadOracle.offer(attempt(store, paced), n, w, windows, 8),
                            hammer(attempt(store, hammered), n, w, hammerNanos), n);
                }
            }
            Supplier<LoadOracle.Attempt> bucket4j = () -> {
                Bucket bucket = Bucket.builder().addLimit(l -> l.capacity(n).refillGreedy(n, Duration.ofNanos(w * 1000)))
                        .build();
                return () -> bucket.tryConsume(1);
            };
            row(md, "Bucket4j " + Bucket.class.getPackage().getImplementationVersion(), "local",
                    LoadOracle.offer(bucket4j.get(), n, w, windows, 8), hammer(bucket4j.get(), n, w, hammerNanos), n);
            Supplier<LoadOracle.Attempt> guava = () -> {
                RateLimiter limiter = RateLimiter.create(n * 1_000_000.0 / w);
                return limiter::tryAcquire;
            };
            row(md, "Guava RateLimiter", "local", LoadOracle.offer(guava.get(), n, w, windows, 8),
                    hammer(guava.get(), n, w, hammerNanos), n);

            md.append(String.format(Locale.ROOT,
                    "%nRedis `MEMORY USAGE` per (policy, key) at saturation: N permits spread over 90%% of a "
                            + "%s ms window; all keys of the decision, `SAMPLES 0`; Redis %s.%n%n",
                    memoryWindowMicros / 1000, server.version()));
            md.append("| strategy |");
            memoryN.forEach(m -> md.append(" N = ").append(m).append(" |"));
            md.append("\n|---|");
            memoryN.forEach(m -> md.append("---|"));
            md.append('\n');
            try (Resp resp = server.connect()) {
                for (Strategy s : Strategy.values()) {
                    md.append("| ").append(s.configName()).append(" |");
                    for (int m : memoryN) {
                        Policy p = new Policy("mem-" + s.configName() + "-" + m, List.of(new Limit(m, memoryWindowMicros)), s,
                                "ip", false);
                        fill(redis, p, "k", m, memoryWindowMicros * 9 / 10);
                        long bytes = RedisLayout.keys(p, "k").stream().mapToLong(k -> {
                            Object usage = resp.call("MEMORY", "USAGE", k, "SAMPLES", "0");
                            return usage == null ? 0 : (Long) usage;
                        }).sum();
                        md.append(' ').append(bytes).append(" B |");
                    }
                    md.append('\n');
                }
                // issue 41: a month-long budget of a million tokens per key, 100 calls of 500 tokens charged
                md.append("\nA month-long budget per key (1 000 000 tokens, 100 calls of 500 charged), `MEMORY USAGE`, "
                        + "`SAMPLES 0`:\n\n| budget | bytes |\n|---|---|\n");
                for (Policy p : List.of(
                        new Policy("month-calendar", List.of(new Limit(1_000_000, new dev.slidegate.api.Calendar(
                                dev.slidegate.api.Calendar.Unit.MONTH, java.time.ZoneId.of("Europe/Berlin")))),
                                Strategy.FIXED_WINDOW, "ip", false),
                        new Policy("month-counter", List.of(Limit.parse("1000000/30d")), Strategy.SLIDING_COUNTER, "ip",
                                false))) {
                    for (int i = 0; i < 100; i++) {
                        redis.acquire(p, "k", 500).toCompletableFuture().join();
                    }
                    long bytes = RedisLayout.keys(p, "k").stream().mapToLong(k -> {
                        Object usage = resp.call("MEMORY", "USAGE", k, "SAMPLES", "0");
                        return usage == null ? 0 : (Long) usage;
                    }).sum();
                    md.append(String.format(Locale.ROOT, "| `%s` %s | %d B |%n", p.limits().get(0),
                            p.strategy() == Strategy.FIXED_WINDOW ? "in Europe/Berlin (fixed-window, calendar)"
                                    : "(sliding-counter, 10 cells: one written so far, at most 11 over the window)",
                            bytes));
                }
            }
        }
        return md.toString();
    }

    private static LoadOracle.Attempt attempt(LimiterStore store, Policy p) {
        store.acquire(p, "warm-up", 1).toCompletableFuture().join();
        return () -> store.acquire(p, "oracle", 1).toCompletableFuture().join().allowed();
    }

    /** 4 threads hammering around an idle pause: the most provable in one W. */
    private static int hammer(LoadOracle.Attempt attempt, int n, long w, long forNanos) throws InterruptedException {
        return LoadOracle.hammerAroundAPause(attempt, n, w * 1000, forNanos, 4).maxProvable();
    }

    private static void row(StringBuilder md, String limiter, String store, LoadOracle.Result paced, int hammered, int n) {
        md.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %.2f N | %s |%n", limiter, store,
                bold(paced.maxProvable(), n),
                bold(paced.maxByAnswer(), n), paced.meanFraction(), bold(hammered, n)));
    }

    /** A count with its fraction of N, bold when over N. */
    private static String bold(int count, int n) {
        String text = String.format(Locale.ROOT, "%d (%.2f N)", count, count / (double) n);
        return count > n ? "**" + text + "**" : text;
    }

    /** Sends {@code count} calls evenly over {@code spreadMicros}, without waiting for each. */
    private static void fill(LimiterStore store, Policy p, String key, int count, long spreadMicros) {
        List<CompletableFuture<Decision>> calls = new ArrayList<>(count);
        long start = System.nanoTime();
        for (int i = 0; i < count; i++) {
            long wait = start + spreadMicros * 1000 * i / count - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            calls.add(store.acquire(p, key, 1).toCompletableFuture());
        }
        calls.forEach(CompletableFuture::join);
    }
}
