package dev.slidegate.bench;

import com.google.common.util.concurrent.RateLimiter;
import dev.slidegate.core.Clock;
import dev.slidegate.core.Decision;
import dev.slidegate.core.Limit;
import dev.slidegate.core.LimiterStore;
import dev.slidegate.core.Policy;
import dev.slidegate.core.Strategy;
import dev.slidegate.memory.MemoryStore;
import dev.slidegate.redis.RedisStore;
import dev.slidegate.testing.LoadOracle;
import dev.slidegate.testing.RedisClients;
import dev.slidegate.testing.RedisServer;
import dev.slidegate.testing.Resp;
import io.github.bucket4j.Bucket;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * The accuracy table of docs/strategies.md: every strategy on both stores, and Bucket4j and Guava's
 * RateLimiter as references, under the same offered load (8 threads, 3N per window, 10 windows);
 * then Redis {@code MEMORY USAGE} per key at saturation. Run it with
 *
 * <pre>./mvnw test -Dtest=AccuracyReport</pre>
 *
 * (not part of the suite: its name does not end in Test; {@code AccuracyReportSmokeTest} runs it
 * small). It writes {@code target/accuracy.md}. Settings: {@code -Daccuracy.n=100},
 * {@code -Daccuracy.window-ms=500}, {@code -Daccuracy.windows=10}, {@code -Daccuracy.memory-n=100,10000}.
 */
public class AccuracyReport {

    @Test
    void report() throws Exception {
        int n = Integer.getInteger("accuracy.n", 100);
        long w = Long.getLong("accuracy.window-ms", 500) * 1000;
        int windows = Integer.getInteger("accuracy.windows", 10);
        List<Integer> memoryN = java.util.Arrays.stream(System.getProperty("accuracy.memory-n", "100,10000").split(","))
                .map(String::trim).map(Integer::valueOf).toList();
        String table = run(n, w, windows, memoryN);
        Path out = Path.of("target", "accuracy.md");
        Files.createDirectories(out.getParent());
        Files.writeString(out, table);
        System.out.println(table);
    }

    /** Measures everything and returns the Markdown tables. */
    public static String run(int n, long w, int windows, List<Integer> memoryN) throws InterruptedException, IOException {
        StringBuilder md = new StringBuilder();
        md.append(String.format(Locale.ROOT, "Limit %d per %d ms; 8 threads offering %d calls per window for %d windows; "
                + "max = most admitted in any %d ms interval; mean = admitted per window / N.%n%n", n, w / 1000, 3 * n, windows, w / 1000));
        md.append("| limiter | store | max in any window | mean per window |\n|---|---|---|---|\n");
        try (RedisServer server = RedisServer.start(); RedisClients clients = new RedisClients(server)) {
            RedisStore redis = new RedisStore(clients.dataSource(), Duration.ofSeconds(5));
            for (Strategy s : Strategy.values()) {
                for (LimiterStore store : List.of(new MemoryStore(Clock.system(), 1000), redis)) {
                    Policy p = new Policy("acc-" + s.configName() + "-" + store.name(), List.of(new Limit(n, w)), s, "ip", false);
                    row(md, "Slidegate " + s.configName(), store.name() + (store == redis ? " " + server.version() : ""),
                            LoadOracle.offer(attempt(store, p), n, w, windows, 8), n);
                }
            }
            Bucket bucket = Bucket.builder().addLimit(l -> l.capacity(n).refillGreedy(n, Duration.ofNanos(w * 1000))).build();
            row(md, "Bucket4j " + Bucket.class.getPackage().getImplementationVersion(), "local",
                    LoadOracle.offer(() -> bucket.tryConsume(1) ? micros() : -1, n, w, windows, 8), n);
            RateLimiter guava = RateLimiter.create(n * 1_000_000.0 / w);
            row(md, "Guava RateLimiter", "local", LoadOracle.offer(() -> guava.tryAcquire() ? micros() : -1, n, w, windows, 8), n);

            md.append(String.format(Locale.ROOT, "%nRedis `MEMORY USAGE` per (policy, key) at saturation: N permits spread over 90%% of a "
                    + "2 s window; all keys of the decision, `SAMPLES 0`; Redis %s.%n%n", server.version()));
            md.append("| strategy |");
            memoryN.forEach(m -> md.append(" N = ").append(m).append(" |"));
            md.append("\n|---|");
            memoryN.forEach(m -> md.append("---|"));
            md.append('\n');
            try (Resp resp = server.connect()) {
                for (Strategy s : Strategy.values()) {
                    md.append("| ").append(s.configName()).append(" |");
                    for (int m : memoryN) {
                        Policy p = new Policy("mem-" + s.configName() + "-" + m, List.of(new Limit(m, 2_000_000)), s, "ip", false);
                        fill(redis, p, "k", m, 1_800_000);
                        long bytes = RedisStore.keys(p, "k").stream().mapToLong(k -> {
                            Object usage = resp.call("MEMORY", "USAGE", k, "SAMPLES", "0");
                            return usage == null ? 0 : (Long) usage;
                        }).sum();
                        md.append(' ').append(bytes).append(" B |");
                    }
                    md.append('\n');
                }
            }
        }
        return md.toString();
    }

    private static LoadOracle.Attempt attempt(LimiterStore store, Policy p) {
        store.acquire(p, "warm-up", 1).toCompletableFuture().join();
        return () -> {
            Decision d = store.acquire(p, "oracle", 1).toCompletableFuture().join();
            return d.allowed() ? d.atMicros() : -1;
        };
    }

    private static long micros() {
        return System.nanoTime() / 1000;
    }

    private static void row(StringBuilder md, String limiter, String store, LoadOracle.Result r, int n) {
        md.append(String.format(Locale.ROOT, "| %s | %s | %d (%.2f N) | %.2f N |%n", limiter, store, r.maxInAnyWindow(),
                r.maxInAnyWindow() / (double) n, r.meanFraction()));
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
