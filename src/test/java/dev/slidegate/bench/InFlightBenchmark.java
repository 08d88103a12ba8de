package dev.slidegate.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Limit;
import dev.slidegate.api.Policy;
import dev.slidegate.api.Strategy;
import dev.slidegate.redis.RedisStore;
import dev.slidegate.testing.RedisClients;
import dev.slidegate.testing.RedisServer;

/**
 * What a limit of calls in flight costs beside a rate policy (issue 40), on one redis-server this benchmark starts,
 * side by side in one run: 64 callers (each waits for its answer, then calls again) on 10 000 keys, every call
 * admitted, through Slidegate's Redis store from plain threads (each decision its own script call: an event loop would
 * batch them):
 * <ul>
 * <li><b>rate</b>: a sliding log ({@code acquire});</li>
 * <li><b>in flight</b>: {@code max-in-flight} ({@code acquire}, the call, then {@code leave});</li>
 * <li><b>both</b>: the two policies on one call (in flight first, then rate, then {@code leave}).</li>
 * </ul>
 * Per admitted call: the time to its admission (what a caller waits before the call runs: p50 and p99, ms), the whole
 * round including the release, the script calls Redis served and Redis's CPU.
 *
 * <pre>
 * ./mvnw test -Dtest=InFlightBenchmark
 * </pre>
 *
 * {@code -Dbench.seconds=8} per row. Writes {@code target/bench/in-flight.md}.
 */
class InFlightBenchmark {

    static final int CALLERS = 64;
    static final int KEYS = 10_000;

    private static final Policy RATE = new Policy("bench-rate", List.of(new Limit(1_000_000_000, 1_000_000)),
            Strategy.SLIDING_LOG, "ip", false);
    private static final Policy IN_FLIGHT = Policy.inFlight("bench-in-flight", 1_000, 30_000_000, "ip");

    @Test
    void measure() throws Exception {
        String report = run(Double.parseDouble(System.getProperty("bench.seconds", "8")));
        System.out.println(report);
        Files.createDirectories(Path.of("target/bench"));
        Files.writeString(Path.of("target/bench/in-flight.md"), report);
    }

    /** One row measured: admitted calls per second, admission latency, whole round, script calls and CPU per call. */
    record Row(String name, double perSecond, double p50, double p99, double roundP50, double scriptsPerCall,
            double redisCpuMicrosPerCall, long errors) {
        String line() {
            return String.format(Locale.ROOT, "| %s | %,.0f/s | %.2f ms | %.2f ms | %.2f ms | %.2f | %.1f µs |%s", name,
                    perSecond, p50, p99, roundP50, scriptsPerCall, redisCpuMicrosPerCall,
                    errors > 0 ? " " + errors + " errors" : "");
        }
    }

    static String run(double seconds) throws Exception {
        try (RedisServer server = RedisServer.start(); RedisClients clients = new RedisClients(server)) {
            RedisStore store = new RedisStore(clients.dataSource(), clients.nodes(),
                    RedisStore.Options.of(Duration.ofSeconds(5)));
            // warm up every path, then measure each row, then each again: the report keeps the second pass
            for (String row : List.of("rate", "in flight", "both")) {
                measure(server, store, row, Math.min(seconds, 2));
            }
            StringBuilder out = new StringBuilder(String.format(Locale.ROOT,
                    "Calls in flight beside a rate policy: Redis %s, %d callers, %d keys, %.0f s per row (%s)%n%n"
                            + "| policies | admitted calls | admission p50 | admission p99 | round p50 (with release) "
                            + "| script calls per call | Redis CPU per call |%n|---|---|---|---|---|---|---|%n",
                    server.version(), CALLERS, KEYS, seconds, "./mvnw test -Dtest=InFlightBenchmark"));
            for (String row : List.of("rate", "in flight", "both")) {
                out.append(measure(server, store, row, seconds).line()).append('\n');
            }
            return out.toString();
        }
    }

    private static Row measure(RedisServer server, RedisStore store, String row, double seconds) throws Exception {
        long scriptsBefore = server.scriptCalls();
        double cpuBefore = redisCpuSeconds(server);
        long stop = System.nanoTime() + (long) (seconds * 1e9);
        AtomicLong calls = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        long[][] admission = new long[CALLERS][];
        long[][] round = new long[CALLERS][];
        CountDownLatch done = new CountDownLatch(CALLERS);
        long started = System.nanoTime();
        for (int c = 0; c < CALLERS; c++) {
            int caller = c;
            Thread t = new Thread(() -> {
                long[] a = new long[1 << 16];
                long[] r = new long[1 << 16];
                int n = 0;
                int key = caller;
                try {
                    while (System.nanoTime() < stop) {
                        String k = "k" + (key = (key + CALLERS) % KEYS);
                        long t0 = System.nanoTime();
                        try {
                            Decision lease = null;
                            if (!row.equals("rate")) {
                                lease = join(store.enter(IN_FLIGHT, k, 0));
                            }
                            if (!row.equals("in flight")) {
                                join(store.acquire(RATE, k, 1, 0));
                            }
                            long t1 = System.nanoTime();
                            if (lease != null) {
                                join(store.leave(IN_FLIGHT, k, List.of(lease.atMicros())));
                            }
                            long t2 = System.nanoTime();
                            a[n & (a.length - 1)] = t1 - t0;
                            r[n & (r.length - 1)] = t2 - t0;
                            n++;
                            calls.incrementAndGet();
                        } catch (RuntimeException e) {
                            errors.incrementAndGet();
                        }
                    }
                } finally {
                    admission[caller] = Arrays.copyOf(a, Math.min(n, a.length));
                    round[caller] = Arrays.copyOf(r, Math.min(n, r.length));
                    done.countDown();
                }
            });
            t.setDaemon(true);
            t.start();
        }
        done.await();
        double elapsed = (System.nanoTime() - started) / 1e9;
        long scripts = server.scriptCalls() - scriptsBefore;
        double cpu = redisCpuSeconds(server) - cpuBefore;
        long[] a = flat(admission);
        long[] r = flat(round);
        long n = Math.max(1, calls.get());
        return new Row(row, calls.get() / elapsed, percentile(a, 0.50), percentile(a, 0.99), percentile(r, 0.50),
                (double) scripts / n, cpu * 1e6 / n, errors.get());
    }

    private static <T> T join(CompletionStage<T> stage) {
        return stage.toCompletableFuture().join();
    }

    private static long[] flat(long[][] parts) {
        long[] all = Arrays.stream(parts).flatMapToLong(Arrays::stream).toArray();
        Arrays.sort(all);
        return all;
    }

    private static double percentile(long[] sorted, double p) {
        return sorted.length == 0 ? 0 : sorted[(int) Math.min(sorted.length - 1, p * sorted.length)] / 1e6;
    }

    /** Redis's CPU (user and system) since it started, from {@code INFO cpu}. */
    private static double redisCpuSeconds(RedisServer server) {
        try (var redis = server.connect()) {
            String info = String.valueOf(redis.call("INFO", "cpu"));
            double total = 0;
            for (String line : info.split("\r?\n")) {
                if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
                    total += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
                }
            }
            return total;
        }
    }
}
