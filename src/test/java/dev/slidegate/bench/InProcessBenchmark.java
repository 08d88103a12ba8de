package dev.slidegate.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * The in-process benchmark (JMH with the GC profiler): every implementation of {@link InProcessBench}
 * with 1 and 2 threads, 1 and 10 000 keys, limits 100/s and 10 000 000/s, all in one run.
 *
 * <pre>
 * ./mvnw test -Dtest=InProcessBenchmark
 * </pre>
 *
 * Settings: {@code -Dbench.forks=1 -Dbench.warmups=2 -Dbench.iterations=3 -Dbench.seconds=1}. Writes
 * {@code target/bench/in-process.md} and the chart {@code docs/bench/in-process.svg}. Not part of the
 * suite: {@code InProcessBenchmarkSmokeTest} runs a tiny version.
 */
class InProcessBenchmark {

    @Test
    void measure() throws Exception {
        String report = run(Integer.getInteger("bench.forks", 1), Integer.getInteger("bench.warmups", 2),
                Integer.getInteger("bench.iterations", 3), Double.parseDouble(System.getProperty("bench.seconds", "1")),
                new int[] { 1, 2 }, null, Path.of("docs/bench/in-process.svg"));
        System.out.println(report);
        Files.createDirectories(Path.of("target/bench"));
        Files.writeString(Path.of("target/bench/in-process.md"), report);
    }

    /** One measured configuration. */
    record Row(String impl, int threads, int perSecond, int keys, double mops, double error, double bytesPerCall) {
    }

    /**
     * Runs the benchmark and returns the report (markdown).
     *
     * @param only parameters restricting the run (JMH {@code @Param} name to values), or null for all
     */
    static String run(int forks, int warmups, int iterations, double seconds, int[] threadCounts, Map<String, String[]> only,
            Path chart)
            throws RunnerException, IOException {
        List<Row> rows = new ArrayList<>();
        for (int threads : threadCounts) {
            ChainedOptionsBuilder options = new OptionsBuilder().include(InProcessBench.class.getName() + ".decide")
                    .forks(forks).warmupIterations(warmups).measurementIterations(iterations)
                    .warmupTime(TimeValue.milliseconds((long) (seconds * 1000)))
                    .measurementTime(TimeValue.milliseconds((long) (seconds * 1000)))
                    .threads(threads).addProfiler(GCProfiler.class).jvmArgsAppend("-Xms2g", "-Xmx2g").shouldFailOnError(true);
            if (only != null) {
                only.forEach(options::param);
            }
            Collection<RunResult> results = new Runner(options.build()).run();
            for (RunResult r : results) {
                var params = r.getParams();
                Result<?> primary = r.getPrimaryResult();
                Result<?> alloc = r.getSecondaryResults().get("gc.alloc.rate.norm");
                rows.add(new Row(params.getParam("impl"), threads, Integer.parseInt(params.getParam("perSecond")),
                        Integer.parseInt(params.getParam("keys")), primary.getScore() / 1e6, primary.getScoreError() / 1e6,
                        alloc == null ? Double.NaN : alloc.getScore()));
            }
        }
        if (chart != null) {
            writeChart(rows, chart);
        }
        return report(rows);
    }

    private static String report(List<Row> rows) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT,
                "In-process decisions, JMH (JDK %s), million calls/s (± 99.9%% error), bytes allocated per call%n%n",
                System.getProperty("java.version")));
        sb.append(
                "| implementation | threads | keys | 100/s | 10 000 000/s | B/call (100/s, 10^7/s) |\n|---|---|---|---|---|---|\n");
        Map<String, Row[]> byConfig = new LinkedHashMap<>();
        for (Row r : rows) {
            byConfig.computeIfAbsent(r.impl() + "|" + r.threads() + "|" + r.keys(), k -> new Row[2])[r.perSecond() == 100 ? 0
                    : 1] = r;
        }
        byConfig.forEach((k, pair) -> {
            Row any = pair[0] != null ? pair[0] : pair[1];
            sb.append(String.format(Locale.ROOT, "| %s | %d | %d | %s | %s | %s, %s |%n", label(any.impl()), any.threads(),
                    any.keys(),
                    score(pair[0]), score(pair[1]), bytes(pair[0]), bytes(pair[1])));
        });
        sb.append('\n').append(ratios(rows));
        return sb.toString();
    }

    /** The goals of issue 7, as ratios within this run. */
    private static String ratios(List<Row> rows) {
        StringBuilder sb = new StringBuilder("Ratios (1 thread, 1 key, same run):\n\n");
        Row log = find(rows, "sliding-log", 1, 100, 1);
        Row logFast = find(rows, "sliding-log", 1, 10_000_000, 1);
        for (int limit : new int[] { 100, 10_000_000 }) {
            Row ours = find(rows, "sliding-log", 1, limit, 1);
            for (String peer : List.of("guava", "bucket4j", "resilience4j")) {
                Row theirs = find(rows, peer, 1, limit, 1);
                if (ours != null && theirs != null) {
                    sb.append(String.format(Locale.ROOT, "- sliding-log ÷ %s at %s/s: %.2f×%n", peer,
                            limit == 100 ? "100" : "10^7",
                            ours.mops() / theirs.mops()));
                }
            }
        }
        if (log != null && logFast != null) {
            sb.append(String.format(Locale.ROOT, "- sliding-log at 10^7/s ÷ at 100/s: %.2f×%n", logFast.mops() / log.mops()));
        }
        return sb.toString();
    }

    static Row find(List<Row> rows, String impl, int threads, int perSecond, int keys) {
        return rows.stream()
                .filter(r -> r.impl().equals(impl) && r.threads() == threads && r.perSecond() == perSecond && r.keys() == keys)
                .findFirst().orElse(null);
    }

    private static void writeChart(List<Row> rows, Path file) {
        List<Chart.Group> groups = new ArrayList<>();
        for (int limit : new int[] { 100, 10_000_000 }) {
            for (int threads : new int[] { 1, 2 }) {
                List<Chart.Bar> bars = new ArrayList<>();
                for (Row r : rows) {
                    if (r.perSecond() == limit && r.threads() == threads && r.keys() == 1) {
                        bars.add(new Chart.Bar(label(r.impl()), r.mops(), !isPeer(r.impl())));
                    }
                }
                if (!bars.isEmpty()) {
                    groups.add(new Chart.Group(
                            String.format(Locale.ROOT, "limit %s, %d thread%s, one key", limit == 100 ? "100/s" : "10^7/s",
                                    threads, threads == 1 ? "" : "s"),
                            bars));
                }
            }
        }
        Chart.write(file, "In-process decisions per second (JMH, millions; higher is better)", "M/s", groups);
    }

    private static boolean isPeer(String impl) {
        return List.of("bucket4j", "guava", "resilience4j").contains(impl);
    }

    private static String label(String impl) {
        return switch (impl) {
            case "bucket4j" -> "Bucket4j";
            case "guava" -> "Guava RateLimiter";
            case "resilience4j" -> "Resilience4j Atomic";
            default -> "Slidegate " + impl;
        };
    }

    private static String score(Row r) {
        return r == null ? "—"
                : Double.isNaN(r.error()) ? String.format(Locale.ROOT, "%.1f", r.mops())
                        : String.format(Locale.ROOT, "%.1f ± %.1f", r.mops(), r.error());
    }

    private static String bytes(Row r) {
        return r == null || Double.isNaN(r.bytesPerCall()) ? "—" : String.format(Locale.ROOT, "%.0f", r.bytesPerCall());
    }
}
