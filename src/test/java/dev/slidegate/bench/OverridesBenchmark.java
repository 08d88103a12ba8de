package dev.slidegate.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.slidegate.it.ServiceProcess;
import dev.slidegate.it.ServiceProcess.Launcher;
import dev.slidegate.testing.AdminCredentials;
import dev.slidegate.testing.RedisServer;
import dev.slidegate.testing.Resp;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * Many overrides, as issue 34 measured them: two instances on one redis-server holding {@code bench.overrides} (10 000)
 * key overrides of {@code reports}, each with a 480-character reason; on instance A, {@code bench.clients} (16) callers
 * ask {@code GET /api/reports} with API keys of a pool of 1 000 (so their decisions go to Redis) for
 * {@code bench.seconds} (20), after as many seconds of warm-up, while an operator's script changes one override a
 * quarter of a second ({@code bench.changes}, 4 a second) through instance B. Reported per run: the callers' latency
 * (their own clock), decisions A left to the fail mode ({@code slidegate_decisions_total{outcome="fallback"}}), and
 * the size of one event of A's {@code /admin/stream}.
 *
 * <p>
 * Runs the jar this checkout packaged and, with {@code -Dbench.before=<quarkus-run.jar>}, another build of it side by
 * side, in interleaved rounds ({@code bench.rounds}, 2), each on a Redis of its own filled before the instances start:
 *
 * <pre>
 * ./mvnw -B package -DskipTests
 * git worktree add /tmp/before ee8f96c &amp;&amp; (cd /tmp/before &amp;&amp; ./mvnw -B package -DskipTests)
 * ./mvnw -B test -Dtest=OverridesBenchmark -Dbench.before=/tmp/before/target/quarkus-app/quarkus-run.jar
 * </pre>
 *
 * Writes target/bench/overrides.md. Not part of the suite; it reports, it asserts nothing.
 */
class OverridesBenchmark {

    private static final String AUTH = AdminCredentials.basicHeader();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** One measured run. */
    record Run(double p50, double p99, double max, long requests, long fallbacks, long changes, long eventBytes) {
    }

    @Test
    void measure() throws Exception {
        int overrides = Integer.getInteger("bench.overrides", 10_000);
        int clients = Integer.getInteger("bench.clients", 16);
        int seconds = Integer.getInteger("bench.seconds", 20);
        int changesPerSecond = Integer.getInteger("bench.changes", 4);
        int rounds = Integer.getInteger("bench.rounds", 2);
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Map<String, Launcher> runners = new LinkedHashMap<>();
        String before = System.getProperty("bench.before");
        if (before != null) {
            runners.put("before (" + before + ")", new Launcher(java.toString(), Path.of(before)));
        }
        runners.put("this build", Launcher.jar(java));
        StringBuilder report = new StringBuilder(String.format(Locale.ROOT,
                "%d key overrides of `reports` (480-character reasons) in Redis; %d callers on instance A for %d s after "
                        + "%d s of warm-up; %d override changes a second through instance B; JDK %d, %d cores.%n%n"
                        + "| build | round | requests | p50 ms | p99 ms | max ms | decisions by fail mode | changes made | one stream event |%n"
                        + "|---|---|---|---|---|---|---|---|---|%n",
                overrides, clients, seconds, seconds, changesPerSecond, Runtime.version().feature(),
                Runtime.getRuntime().availableProcessors()));
        for (int round = 1; round <= rounds; round++) {
            for (Map.Entry<String, Launcher> runner : runners.entrySet()) {
                Run r = run(runner.getValue(), overrides, clients, seconds, changesPerSecond);
                report.append(String.format(Locale.ROOT, "| %s | %d | %d | %.1f | %.1f | %.1f | %d | %d | %,d B |%n",
                        runner.getKey(), round, r.requests(), r.p50(), r.p99(), r.max(), r.fallbacks(), r.changes(),
                        r.eventBytes()));
                System.out.println(report);
            }
        }
        Files.createDirectories(Path.of("target/bench"));
        Files.writeString(Path.of("target/bench/overrides.md"), report.toString());
        System.out.println(report);
    }

    private static Run run(Launcher launcher, int overrides, int clients, int seconds, int changesPerSecond)
            throws Exception {
        try (RedisServer redis = RedisServer.start()) {
            fill(redis, overrides);
            try (ServiceProcess a = ServiceProcess.start(launcher, "-Dquarkus.redis.hosts=" + redis.uri());
                    ServiceProcess b = ServiceProcess.start(launcher, "-Dquarkus.redis.hosts=" + redis.uri())) {
                load(a, b, clients, seconds, 0, overrides); // warm-up: the JIT, the connections
                long fallbacksBefore = fallbacks(a);
                Run r = load(a, b, clients, seconds, changesPerSecond, overrides);
                return new Run(r.p50(), r.p99(), r.max(), r.requests(), fallbacks(a) - fallbacksBefore, r.changes(),
                        eventBytes(a));
            }
        }
    }

    /** Writes the overrides straight into the hash, as every build reads it at start. */
    private static void fill(RedisServer redis, int overrides) {
        try (Resp r = redis.connect()) {
            List<String> args = new ArrayList<>(List.of("HSET", "slidegate:overrides"));
            for (int i = 0; i < overrides; i++) {
                String key = "hdr:k" + i;
                args.add(new JsonArray().add("reports").addNull().add(key).encode());
                args.add(new JsonObject().put("policy", "reports").putNull("plan").put("key", key)
                        .put("limits", new JsonArray().add((50 + i % 50) + "/1h")).put("block", false).put("exempt", false)
                        .putNull("expiresAt").put("reason", "r".repeat(480)).put("setBy", "admin")
                        .put("setAt", "2026-11-25T00:00:00Z").encode());
                if (args.size() >= 2002 || i == overrides - 1) {
                    r.call(args.toArray(String[]::new));
                    args = new ArrayList<>(List.of("HSET", "slidegate:overrides"));
                }
            }
        }
    }

    /** Callers on {@code a} for {@code seconds}, while {@code changesPerSecond} overrides change through {@code b}. */
    private static Run load(ServiceProcess a, ServiceProcess b, int clients, int seconds, int changesPerSecond,
            int overrides) throws Exception {
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        List<long[]> latencies = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            long[] mine = new long[2_000_000];
            latencies.add(mine);
            Thread t = new Thread(() -> {
                int n = 0;
                while (System.nanoTime() < end && n < mine.length - 1) {
                    HttpRequest get = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + a.port + "/api/reports"))
                            .header("X-Api-Key", "caller-" + ThreadLocalRandom.current().nextInt(1000))
                            .timeout(Duration.ofSeconds(30)).GET().build();
                    long start = System.nanoTime();
                    try {
                        HTTP.send(get, HttpResponse.BodyHandlers.discarding());
                    } catch (Exception e) {
                        continue;
                    }
                    mine[++n] = System.nanoTime() - start;
                }
                mine[0] = n;
            });
            threads.add(t);
            t.start();
        }
        AtomicLong changes = new AtomicLong();
        AtomicBoolean done = new AtomicBoolean();
        Thread operator = new Thread(() -> {
            long next = System.nanoTime();
            while (changesPerSecond > 0 && !done.get() && System.nanoTime() < end) {
                int k = ThreadLocalRandom.current().nextInt(overrides);
                HttpRequest put = HttpRequest
                        .newBuilder(URI.create("http://127.0.0.1:" + b.port + "/admin/policies/reports/keys/hdr:k" + k
                                + "/override"))
                        .header("Authorization", AUTH).header("Content-Type", "application/json")
                        .timeout(Duration.ofSeconds(30)).PUT(HttpRequest.BodyPublishers.ofString("{\"limits\": [\""
                                + (10 + ThreadLocalRandom.current().nextInt(90)) + "/1h\"], \"reason\": \"" + "c".repeat(480)
                                + "\"}"))
                        .build();
                try {
                    if (HTTP.send(put, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                        changes.incrementAndGet();
                    }
                } catch (Exception e) {
                    // counted as not made
                }
                next += 1_000_000_000L / changesPerSecond;
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    try {
                        Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        });
        operator.start();
        for (Thread t : threads) {
            t.join();
        }
        done.set(true);
        operator.join();
        int total = 0;
        for (long[] l : latencies) {
            total += (int) l[0];
        }
        long[] all = new long[total];
        int i = 0;
        for (long[] l : latencies) {
            System.arraycopy(l, 1, all, i, (int) l[0]);
            i += (int) l[0];
        }
        java.util.Arrays.sort(all);
        return new Run(ms(all, 0.50), ms(all, 0.99), total == 0 ? 0 : all[total - 1] / 1e6, total, 0, changes.get(), 0);
    }

    private static double ms(long[] sorted, double q) {
        return sorted.length == 0 ? 0 : sorted[Math.min(sorted.length - 1, (int) (q * sorted.length))] / 1e6;
    }

    /** A's decisions by fail mode since it started, from its metrics. */
    private static long fallbacks(ServiceProcess a) throws Exception {
        String metrics = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + a.port + "/q/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        double sum = 0;
        for (String line : metrics.lines().toList()) {
            if (line.startsWith("slidegate_decisions_total{") && line.contains("outcome=\"fallback\"")) {
                sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return (long) sum;
    }

    /** The size of the first event of A's live-page stream. */
    private static long eventBytes(ServiceProcess a) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + a.port + "/admin/stream"))
                .header("Authorization", AUTH).timeout(Duration.ofSeconds(30)).GET().build();
        HttpResponse<java.io.InputStream> r = HTTP.send(request, HttpResponse.BodyHandlers.ofInputStream());
        try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.startsWith("data:")) {
                    return line.getBytes(StandardCharsets.UTF_8).length;
                }
            }
            return -1;
        }
    }
}
