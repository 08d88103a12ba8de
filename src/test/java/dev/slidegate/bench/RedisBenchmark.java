package dev.slidegate.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

import org.junit.jupiter.api.Test;

import dev.slidegate.api.Limit;
import dev.slidegate.api.Policy;
import dev.slidegate.api.Strategy;
import dev.slidegate.memory.MemoryStore;
import dev.slidegate.redis.RedisLayout;
import dev.slidegate.redis.RedisStore;
import dev.slidegate.testing.RedisClients;
import dev.slidegate.testing.RedisServer;
import dev.slidegate.testing.Resp;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.AsyncBucketProxy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;

/**
 * Redis decisions side by side, in one run against one redis-server this benchmark starts:
 * Slidegate's Redis store driven from Java by 64 concurrent callers (each waits for its answer, then
 * asks again) on 10 000 keys and on one hot key, per strategy; {@code redis-benchmark} replaying the
 * very same {@code EVALSHA} with 64 clients (the ceiling of this Redis here); Bucket4j's Lettuce
 * proxy manager on the same Redis; decision latency at half the ceiling (open loop); and
 * {@code MEMORY USAGE} per key at saturation beside the memory store's heap per key.
 *
 * <pre>
 * ./mvnw test -Dtest=RedisBenchmark
 * </pre>
 *
 * Settings: {@code -Dbench.seconds=8}, {@code -Dbench.strategies=fixed-window,token-bucket} (only their table; default:
 * everything). Writes {@code target/bench/redis.md} and {@code docs/bench/redis.svg}.
 * Not part of the suite: {@code RedisBenchmarkSmokeTest} runs it for a fraction of a second.
 */
class RedisBenchmark {

    static final int CALLERS = 64;
    static final int KEYS = 10_000;
    static final int POOL = 32; // the service's quarkus.redis.max-pool-size

    @Test
    void measure() throws Exception {
        String report = run(Double.parseDouble(System.getProperty("bench.seconds", "8")), Path.of("docs/bench/redis.svg"),
                true);
        System.out.println(report);
        Files.createDirectories(Path.of("target/bench"));
        Files.writeString(Path.of("target/bench/redis.md"), report);
    }

    /** One measured load: decisions per second, errors and latency percentiles (ms). */
    record Load(double perSecond, long errors, double p50, double p99) {
        String row() {
            return String.format(Locale.ROOT, "%,.0f/s | %.2f ms | %.2f ms%s", perSecond, p50, p99,
                    errors > 0 ? " (" + errors + " errors)" : "");
        }
    }

    static String run(double seconds, Path chart, boolean memory) throws Exception {
        StringBuilder out = new StringBuilder();
        List<Chart.Group> groups = new ArrayList<>();
        try (RedisServer server = RedisServer.start(); RedisClients clients = new RedisClients(server, POOL)) {
            RedisStore store = new RedisStore(clients.dataSource(), Duration.ofSeconds(5));
            String version = server.version();
            out.append(String.format(Locale.ROOT,
                    "Redis %s on loopback; %d callers; limit 1000/1s; %.0f s per measurement; JDK %s%n%n",
                    version, CALLERS, seconds, System.getProperty("java.version")));
            out.append(
                    "| strategy | keys | Slidegate | p50 | p99 | ceiling: redis-benchmark -c 64 -P 1 | p50 | p99 | Slidegate ÷ ceiling "
                            + "| redis-benchmark -P 16 |\n");
            out.append("|---|---|---|---|---|---|---|---|---|---|\n");
            List<Chart.Bar> spread = new ArrayList<>();
            List<Chart.Bar> hot = new ArrayList<>();
            double logCeiling = 0;
            String only = System.getProperty("bench.strategies", "");
            for (Strategy s : Strategy.values()) {
                if (!only.isEmpty() && !List.of(only.split(",")).contains(s.configName())) {
                    continue;
                }
                Policy policy = new Policy("bench-" + s.configName(), List.of(Limit.parse("1000/1s")), s, "global", false);
                load(server, policy);
                closedLoop(Math.min(2, seconds / 2), i -> store.acquire(policy, key(i % KEYS), 1)); // warm-up (JIT, connections)
                for (int keys : new int[] { KEYS, 1 }) {
                    flush(server);
                    Load ours = closedLoop(seconds, i -> store.acquire(policy, key(keys == 1 ? 0 : i % keys), 1));
                    flush(server);
                    Load ceiling = redisBenchmark(server, policy, keys, seconds, 1, ours.perSecond());
                    flush(server);
                    Load pipelined = redisBenchmark(server, policy, keys, seconds / 2, 16, ceiling.perSecond() * 2);
                    out.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | **%.2f** | %,.0f/s |%n", s.configName(),
                            keys == 1 ? "one hot key" : "10 000", ours.row(), ceiling.row(),
                            ours.perSecond() / ceiling.perSecond(),
                            pipelined.perSecond()));
                    (keys == 1 ? hot : spread).add(new Chart.Bar("Slidegate " + s.configName(), ours.perSecond() / 1000, true));
                    if (s == Strategy.SLIDING_LOG) {
                        (keys == 1 ? hot : spread)
                                .add(new Chart.Bar("redis-benchmark, same script", ceiling.perSecond() / 1000, false));
                        if (keys != 1) {
                            logCeiling = ceiling.perSecond();
                        }
                    }
                }
            }
            if (!only.isEmpty()) {
                return out.toString(); // the chosen strategies' table only (for profiling one strategy)
            }
            flush(server);
            bucket4j(server, Math.min(2, seconds / 2), KEYS); // warm-up
            flush(server);
            Load b4jSpread = bucket4j(server, seconds, KEYS);
            flush(server);
            Load b4jHot = bucket4j(server, seconds, 1);
            spread.add(new Chart.Bar("Bucket4j Lettuce (CAS)", b4jSpread.perSecond() / 1000, false));
            hot.add(new Chart.Bar("Bucket4j Lettuce (CAS)", b4jHot.perSecond() / 1000, false));
            Policy log = new Policy("bench-sliding-log", List.of(Limit.parse("1000/1s")), Strategy.SLIDING_LOG, "global",
                    false);
            flush(server);
            Load ourHot = closedLoop(seconds, i -> store.acquire(log, key(0), 1));
            out.append(String.format(Locale.ROOT,
                    "%nBucket4j %s, Lettuce proxy manager (compare-and-swap), same Redis, same callers, limit 1000/1s:%n%n",
                    "8.19.0"));
            out.append(
                    "| keys | Bucket4j | p50 | p99 | Slidegate sliding-log | p50 | p99 | Slidegate ÷ Bucket4j |\n|---|---|---|---|---|---|---|---|\n");
            out.append(String.format(Locale.ROOT, "| 10 000 | %s | (see above) | | | |%n", b4jSpread.row()));
            out.append(String.format(Locale.ROOT, "| one hot key | %s | %s | **%.1f×** |%n", b4jHot.row(), ourHot.row(),
                    ourHot.perSecond() / Math.max(1, b4jHot.perSecond())));

            out.append(String.format(Locale.ROOT,
                    "%nSliding log, open loop (calls started at a fixed rate, latency counted from each call's "
                            + "intended start), 10 000 keys, with what else happened meanwhile:%n%n"));
            out.append(
                    "| offered | served | p50 | p99 | p99.9 | max | GC pauses in the JVM (count, longest, total) | Redis time per call "
                            + "(commandstats) |\n|---|---|---|---|---|---|---|---|\n");
            for (double share : new double[] { 0.5, 0.25, 0.1 }) {
                flush(server);
                double rate = logCeiling * share;
                try (Resp r = server.connect()) {
                    r.call("CONFIG", "RESETSTAT");
                }
                GcPauses gc = GcPauses.start();
                Samples samples = new Samples();
                Load open = openLoop(seconds, rate, i -> store.acquire(log, key(i % KEYS), 1), samples,
                        clients.vertx().getDelegate().getOrCreateContext());
                gc.stop();
                String what = share == 0.5 ? "half" : share == 0.25 ? "a quarter" : "a tenth";
                out.append(String.format(Locale.ROOT,
                        "| %,.0f/s (%s of the ceiling) | %,.0f/s | %.2f ms | %.2f ms | %.2f ms | %.2f ms | %s | %s |%n", rate,
                        what, open.perSecond(), open.p50(), open.p99(), samples.percentile(0.999), samples.percentile(1.0), gc,
                        redisMicrosPerCall(server)));
                // the floor: the same open loop, same client and event loop, sending PING (nothing to compute, nothing to store)
                io.vertx.redis.client.Redis bare = clients.dataSource().getRedis().getDelegate();
                GcPauses pingGc = GcPauses.start();
                Samples pings = new Samples();
                Load ping = openLoop(seconds, rate,
                        i -> bare.send(io.vertx.redis.client.Request.cmd(io.vertx.redis.client.Command.PING))
                                .toCompletionStage(),
                        pings, clients.vertx().getDelegate().getOrCreateContext());
                pingGc.stop();
                out.append(String.format(Locale.ROOT,
                        "| the same rate, `PING` instead (the floor of this client and machine) | %,.0f/s | %.2f ms | %.2f ms | %.2f ms | %.2f ms "
                                + "| %s | |%n",
                        ping.perSecond(), ping.p50(), ping.p99(), pings.percentile(0.999), pings.percentile(1.0), pingGc));
            }

            if (memory) {
                out.append('\n').append(memoryTable(server, store));
            }
            groups.add(new Chart.Group("10 000 keys, 64 callers", spread));
            groups.add(new Chart.Group("one hot key, 64 callers", hot));
        }
        if (chart != null) {
            Chart.write(chart, "Redis decisions per second (thousands; higher is better)", "k/s", groups);
        }
        return out.toString();
    }

    static String key(int i) {
        return String.format(Locale.ROOT, "k:%012d", i);
    }

    private static void load(RedisServer server, Policy policy) {
        try (Resp r = server.connect()) {
            r.call("SCRIPT", "LOAD", RedisLayout.scriptBody(policy));
        }
    }

    private static void flush(RedisServer server) {
        try (Resp r = server.connect()) {
            r.call("FLUSHALL");
        }
    }

    /** {@code CALLERS} callers, each asking again as soon as it has its answer, for {@code seconds}. */
    static Load closedLoop(double seconds, IntFunction<CompletionStage<?>> call) throws InterruptedException {
        long end = System.nanoTime() + (long) (seconds * 1e9);
        Samples samples = new Samples();
        AtomicLong errors = new AtomicLong();
        AtomicInteger seq = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(CALLERS);
        long start = System.nanoTime();
        for (int c = 0; c < CALLERS; c++) {
            new Object() {
                void next() {
                    long t0 = System.nanoTime();
                    if (t0 >= end) {
                        done.countDown();
                        return;
                    }
                    call.apply(seq.getAndIncrement() * 7919 & Integer.MAX_VALUE).whenComplete((r, e) -> {
                        if (e != null) {
                            errors.incrementAndGet();
                        } else {
                            samples.add(System.nanoTime() - t0);
                        }
                        next();
                    });
                }
            }.next();
        }
        if (!done.await((long) (seconds * 1000) + 30_000, TimeUnit.MILLISECONDS)) {
            errors.addAndGet(done.getCount()); // callers that never got an answer
        }
        double elapsed = (System.nanoTime() - start) / 1e9;
        return samples.load(elapsed, errors.get());
    }

    /** Calls started at a fixed rate whatever the answers do; latency counts from the intended start. */
    static Load openLoop(double seconds, double perSecond, IntFunction<CompletionStage<?>> call) throws InterruptedException {
        return openLoop(seconds, perSecond, call, new Samples(), null);
    }

    /**
     * The open loop, issuing the calls on {@code loop} (a Vert.x event loop, where the service makes
     * its HTTP decisions) when it is not null: the pacing thread hands over every call due so far in
     * one task, at least every 200 µs, so a call starts up to about that much after its intended start,
     * and that delay is counted in its latency.
     */
    static Load openLoop(double seconds, double perSecond, IntFunction<CompletionStage<?>> call, Samples samples,
            io.vertx.core.Context loop)
            throws InterruptedException {
        AtomicLong errors = new AtomicLong();
        long total = (long) (seconds * perSecond);
        CountDownLatch done = new CountDownLatch((int) total);
        long start = System.nanoTime();
        long i = 0;
        while (i < total) {
            long now = System.nanoTime();
            long wait = due(start, i, perSecond) - now;
            if (wait > 0) {
                java.util.concurrent.locks.LockSupport.parkNanos(Math.min(wait, 200_000));
                continue;
            }
            long from = i;
            long to = i + 1;
            while (to < total && due(start, to, perSecond) <= now) {
                to++;
            }
            long until = to;
            Runnable batch = () -> {
                for (long k = from; k < until; k++) {
                    long due = due(start, k, perSecond);
                    call.apply((int) (k * 7919 & Integer.MAX_VALUE)).whenComplete((r, e) -> {
                        if (e != null) {
                            errors.incrementAndGet();
                        } else {
                            samples.add(System.nanoTime() - due);
                        }
                        done.countDown();
                    });
                }
            };
            if (loop == null) {
                batch.run();
            } else {
                loop.runOnContext(v -> batch.run());
            }
            i = until;
        }
        done.await(60, TimeUnit.SECONDS);
        return samples.load((System.nanoTime() - start) / 1e9, errors.get());
    }

    private static long due(long start, long i, double perSecond) {
        return start + (long) (i * 1e9 / perSecond);
    }

    /** {@code redis-benchmark} of the same EVALSHA, {@code -c 64}, with {@code -r} spreading the keys like ours. */
    static Load redisBenchmark(RedisServer server, Policy policy, int keys, double seconds, int pipeline,
            double expectedPerSecond)
            throws IOException, InterruptedException {
        long requests = Math.max(1000, (long) (seconds * Math.max(expectedPerSecond, 20_000)));
        Path sibling = Path.of(server.binary()).resolveSibling("redis-benchmark");
        String binary = Files.isExecutable(sibling) ? sibling.toString() : "redis-benchmark";
        List<String> cmd = new ArrayList<>(List.of(binary, "-h", "127.0.0.1",
                "-p", Integer.toString(server.port()), "-c", Integer.toString(CALLERS), "-n", Long.toString(requests), "-P",
                Integer.toString(pipeline), "--csv"));
        if (keys > 1) {
            cmd.addAll(List.of("-r", Integer.toString(keys)));
        }
        cmd.add("EVALSHA");
        cmd.addAll(RedisLayout.evalshaArguments(policy, keys > 1 ? "k:__rand_int__" : key(0), 1,
                dev.slidegate.core.Clock.system().nowMicros()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        // "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
        String line = output.lines().filter(l -> l.startsWith("\"EVALSHA")).findFirst()
                .orElseThrow(() -> new IllegalStateException("redis-benchmark said: " + output));
        String[] f = line.replace("\"", "").split(",");
        return new Load(Double.parseDouble(f[1]), 0, Double.parseDouble(f[4]), Double.parseDouble(f[6]));
    }

    /** Bucket4j's Redis backend (Lettuce, compare-and-swap), async, the same callers and limit. */
    static Load bucket4j(RedisServer server, double seconds, int keys) throws InterruptedException {
        RedisClient client = RedisClient.create(server.uri());
        try (StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE)) {
            ProxyManager<byte[]> proxies = Bucket4jLettuce.casBasedBuilder(connection)
                    .expirationAfterWrite(
                            ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(10)))
                    .build();
            BucketConfiguration config = BucketConfiguration.builder()
                    .addLimit(l -> l.capacity(1000).refillGreedy(1000, Duration.ofSeconds(1))).build();
            ConcurrentHashMap<Integer, AsyncBucketProxy> buckets = new ConcurrentHashMap<>();
            return closedLoop(seconds, i -> buckets.computeIfAbsent(keys == 1 ? 0 : i % keys,
                    k -> proxies.asAsync().builder().build(("b4j:" + key(k)).getBytes(StandardCharsets.UTF_8), config))
                    .tryConsume(1));
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    /** Redis MEMORY USAGE and the memory store's heap per key, at saturation, per strategy, for N = 100 and 10 000. */
    static String memoryTable(RedisServer server, RedisStore redisStore) {
        StringBuilder sb = new StringBuilder(
                "Memory per key at saturation (one limit N/1min; every permit of the window used):\n\n");
        sb.append("| strategy | N | Redis `MEMORY USAGE` | memory store heap |\n|---|---|---|---|\n");
        for (Strategy s : Strategy.values()) {
            for (int n : new int[] { 100, 10_000 }) {
                Policy p = new Policy("mem-" + s.configName(), List.of(new Limit(n, 60_000_000)), s, "global", false);
                flush(server);
                redisStore.acquire(p, "k:saturated", n).toCompletableFuture().join();
                long bytes = 0;
                try (Resp r = server.connect()) {
                    for (String k : RedisLayout.keys(p, "k:saturated")) {
                        bytes += (Long) r.call("MEMORY", "USAGE", k, "SAMPLES", "0");
                    }
                }
                sb.append(String.format(Locale.ROOT, "| %s | %,d | %,d B | %,.0f B |%n", s.configName(), n, bytes,
                        heapPerKey(p, n)));
            }
        }
        return sb.toString();
    }

    /** Heap per saturated key of the memory store: used heap after GC with many keys, minus before, per key. */
    static double heapPerKey(Policy p, int n) {
        int count = n >= 10_000 ? 200 : 5_000;
        MemoryStore store = new MemoryStore(dev.slidegate.core.Clock.system(), count * 2);
        String[] names = new String[count];
        for (int i = 0; i < count; i++) {
            names[i] = key(i);
        }
        long before = usedHeap();
        for (String k : names) {
            store.decide(p, k, n);
        }
        long after = usedHeap();
        java.lang.ref.Reference.reachabilityFence(store); // measured while still in use
        return (after - before) / (double) count;
    }

    private static long usedHeap() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** Latency samples (bounded), and the count of every completed call. */
    static final class Samples {
        private final long[] nanos = new long[1 << 21];
        private final AtomicInteger n = new AtomicInteger();
        private final AtomicLong completed = new AtomicLong();

        void add(long latency) {
            completed.incrementAndGet();
            int i = n.getAndIncrement();
            if (i < nanos.length) {
                nanos[i] = latency;
            }
        }

        Load load(double elapsedSeconds, long errors) {
            int size = Math.min(n.get(), nanos.length);
            long[] sorted = Arrays.copyOf(nanos, size);
            Arrays.sort(sorted);
            return new Load(completed.get() / elapsedSeconds, errors, pct(sorted, 0.50), pct(sorted, 0.99));
        }

        /** The latency at quantile {@code q} (1.0: the longest), in ms, of what was recorded so far. */
        double percentile(double q) {
            long[] sorted = Arrays.copyOf(nanos, Math.min(n.get(), nanos.length));
            Arrays.sort(sorted);
            return pct(sorted, q);
        }

        private static double pct(long[] sorted, double q) {
            return sorted.length == 0 ? Double.NaN : sorted[Math.min(sorted.length - 1, (int) (q * sorted.length))] / 1e6;
        }
    }

    /** Redis's own time per {@code EVALSHA} since the last {@code CONFIG RESETSTAT}, from {@code INFO commandstats}. */
    static String redisMicrosPerCall(RedisServer server) {
        try (Resp r = server.connect()) {
            String info = String.valueOf(r.call("INFO", "commandstats"));
            return info.lines().filter(l -> l.startsWith("cmdstat_evalsha:")).findFirst()
                    .map(l -> l.replaceAll(".*usec_per_call=([0-9.]+).*", "$1") + " µs").orElse("?");
        }
    }

    /** Collector pauses of this JVM while a measurement runs: how many, the longest, and their sum. */
    static final class GcPauses implements javax.management.NotificationListener {
        private final java.util.concurrent.atomic.LongAdder count = new java.util.concurrent.atomic.LongAdder();
        private final java.util.concurrent.atomic.LongAdder totalMillis = new java.util.concurrent.atomic.LongAdder();
        private final java.util.concurrent.atomic.LongAccumulator longest = new java.util.concurrent.atomic.LongAccumulator(
                Math::max, 0);
        private final List<javax.management.NotificationEmitter> emitters = new ArrayList<>();

        static GcPauses start() {
            GcPauses p = new GcPauses();
            for (var gc : java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()) {
                if (gc instanceof javax.management.NotificationEmitter e) {
                    e.addNotificationListener(p, null, null);
                    p.emitters.add(e);
                }
            }
            return p;
        }

        @Override
        public void handleNotification(javax.management.Notification n, Object handback) {
            if (!com.sun.management.GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
                return;
            }
            var info = com.sun.management.GarbageCollectionNotificationInfo
                    .from((javax.management.openmbean.CompositeData) n.getUserData());
            if (info.getGcName().contains("Cycles")) {
                return; // concurrent work (ZGC/Shenandoah cycles), not a pause
            }
            long ms = info.getGcInfo().getDuration();
            count.increment();
            totalMillis.add(ms);
            longest.accumulate(ms);
        }

        void stop() {
            for (var e : emitters) {
                try {
                    e.removeNotificationListener(this);
                } catch (javax.management.ListenerNotFoundException ignored) {
                    // already gone
                }
            }
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%d, %d ms, %d ms", count.sum(), longest.get(), totalMillis.sum());
        }
    }
}
