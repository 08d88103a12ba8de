package dev.slidegate.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import dev.slidegate.it.ServiceProcess.Launcher;
import dev.slidegate.testing.RedisServer;

/**
 * HTTP throughput of the native executable beside the jar, measured with {@code wrk} the way
 * {@link HttpBenchmark} measures the jar: each run is its own process on {@code GET /api/products} with limits
 * that refuse nothing, warmed up with wrk ({@code bench.warmup} seconds, 20 by default, so that the jar's JIT has
 * compiled the request path), then measured for {@code bench.seconds} (10). The runners are the native
 * executable {@code target/*-runner}, the jar on the JVM that runs this test (JDK 17 with the README's command)
 * and, where it is installed, the jar on Temurin 25 ({@code -Dbench.java25=/path/to/java} to choose another).
 * Each of the memory store and the Redis store (a redis-server this benchmark starts) is measured for every
 * runner in turn, {@code bench.rounds} times (2), interleaved, so that a busy moment of the shared machine
 * shows as a difference between rounds rather than between runners.
 *
 * <pre>
 * ./mvnw -B package -Dnative -Dquarkus.native.graalvm-home=/opt/graalvm-assembled -DskipTests
 * ./mvnw -B test -Dtest=NativeBenchmark        # ~5 min; writes target/bench/native.md
 * </pre>
 */
class NativeBenchmark {

    @Test
    void measure() throws Exception {
        Path executable;
        try (Stream<Path> files = Files.list(Path.of("target"))) {
            executable = files.filter(p -> p.getFileName().toString().endsWith("-runner") && Files.isExecutable(p))
                    .findFirst().orElseThrow(() -> new IllegalStateException(
                            "no native executable target/*-runner: build it first with ./mvnw -B package -Dnative"
                                    + " -Dquarkus.native.graalvm-home=... -DskipTests (README, native section)"));
        }
        Map<String, Launcher> runners = new LinkedHashMap<>();
        runners.put("native", Launcher.nativeExecutable(executable));
        runners.put("jar, JDK " + Runtime.version().feature(),
                Launcher.jar(Path.of(System.getProperty("java.home"), "bin", "java")));
        Path java25 = Path.of(System.getProperty("bench.java25", "/usr/lib/jvm/temurin-25-jdk-amd64/bin/java"));
        if (Files.isExecutable(java25) && Runtime.version().feature() != 25) {
            runners.put("jar, Temurin 25", Launcher.jar(java25));
        }
        int seconds = Integer.getInteger("bench.seconds", 10);
        int connections = Integer.getInteger("bench.connections", 64);
        int rounds = Integer.getInteger("bench.rounds", 2);
        List<String[]> rows = new ArrayList<>();
        try (RedisServer redis = RedisServer.start()) {
            for (int round = 1; round <= rounds; round++) {
                for (String store : List.of("memory", "redis")) {
                    Map<String, HttpBenchmark.Run> runs = new LinkedHashMap<>();
                    for (Map.Entry<String, Launcher> runner : runners.entrySet()) {
                        List<String> props = new ArrayList<>(List.of("-Dslidegate.store=" + store,
                                "-Dslidegate.policies.products.limits=" + HttpBenchmark.NOTHING_REFUSED));
                        if (store.equals("redis")) {
                            props.add("-Dquarkus.redis.hosts=" + redis.uri());
                        }
                        runs.put(runner.getKey(), HttpBenchmark.measure(runner.getValue(), "/api/products", seconds,
                                HttpBenchmark.WARMUP, connections, store.equals("redis") ? redis : null,
                                props.toArray(String[]::new)));
                    }
                    HttpBenchmark.Run nativeRun = runs.get("native");
                    runs.forEach((name, r) -> rows.add(row(rounds, name, store, r, nativeRun)));
                    System.out.println(table(rows));
                }
            }
        }
        String report = "Executable " + executable.getFileName() + " ("
                + String.format(Locale.ROOT, "%.1f MB", Files.size(executable) / 1e6) + "), " + seconds + " s with wrk -t2 -c"
                + connections + " after " + HttpBenchmark.WARMUP + " s of warm-up, "
                + Runtime.getRuntime().availableProcessors()
                + " cores shared by wrk, the service and redis-server\n\n" + table(rows);
        System.out.println(report);
        Files.createDirectories(Path.of("target/bench"));
        Files.writeString(Path.of("target/bench/native.md"), report);
    }

    private static String[] row(int rounds, String runner, String store, HttpBenchmark.Run r, HttpBenchmark.Run nativeRun) {
        HttpBenchmark.Wrk w = r.wrk();
        return new String[] { runner, store, String.format(Locale.ROOT, "%,.0f", w.perSecond()),
                String.format(Locale.ROOT, "%.2f", w.perSecond() / nativeRun.perSecond()),
                String.format(Locale.ROOT, "%,d of %,d", w.non2xx(), w.requests()), w.p50(), w.p99(),
                String.format(Locale.ROOT, "%.1f", r.serviceMicros()),
                r.redisMicros() < 0 ? "–" : String.format(Locale.ROOT, "%.1f", r.redisMicros()),
                String.format(Locale.ROOT, "%d", r.rssKb() / 1024) };
    }

    private static String table(List<String[]> rows) {
        StringBuilder out = new StringBuilder(
                "| runner | store | requests/s | ÷ native (same round) | non-2xx | p50 | p99 | service CPU µs/request | Redis CPU µs/request | RSS after the run (MB) |\n"
                        + "|---|---|---|---|---|---|---|---|---|---|\n");
        for (String[] r : rows) {
            out.append("| ").append(String.join(" | ", r)).append(" |\n");
        }
        return out.toString();
    }
}
