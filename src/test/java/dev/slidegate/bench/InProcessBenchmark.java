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
 * Settings: {@code -Dbench.forks=1 -Dbench.warmups=2 -Dbench.iterations=3 -Dbench.seconds=1}; a part of the run
 * with {@code -Dbench.impl=sliding-log,guava -Dbench.view=map -Dbench.perSecond=100 -Dbench.keys=1 -Dbench.threads=1}
 * (comma-separated values of each). Writes
 * {@code target/bench/in-process.md} and the chart {@code docs/bench/in-process.svg}. Not part of the
 * suite: {@code InProcessBenchmarkSmokeTest} runs a tiny version.
 */
class InProcessBenchmark {

    @Test
    void measure() throws Exception {
        Map<String, String[]> only = new LinkedHashMap<>();
        for (String param : List.of("impl", "view", "perSecond", "keys")) {
            String values = System.getProperty("bench." + param);
            if (values != null) {
                only.put(param, values.split(","));
            }
        }
        int[] threads = java.util.Arrays.stream(System.getProperty("bench.threads", "1,2").split(","))
                .mapToInt(Integer::parseInt).toArray();
        // a part of the run (a strategy being tuned) writes no chart over the whole run's
        Path chart = only.isEmpty() && threads.length == 2 ? Path.of("docs/bench/in-process.svg") : null;
        String report = run(Integer.getInteger("bench.forks", 1), Integer.getInteger("bench.warmups", 2),
                Integer.getInteger("bench.iterations", 3), Double.parseDouble(System.getProperty("bench.seconds", "1")),
                threads, only.isEmpty() ? null : only, chart);
        System.out.println(report);
        Files.createDirectories(Path.of("target/bench"));
        Files.writeString(Path.of("target/bench/in-process.md"), report);
    }

    /** One measured configuration; {@code view} is {@code map} or {@code bare} for a peer, {@code store} for Slidegate. */
    record Row(String impl, String view, int threads, int perSecond, int keys, double mops, double error,
            double bytesPerCall) {
    }

    static final List<String> SLIDEGATE = List.of("sliding-log", "sliding-log-decision", "fixed-window", "sliding-counter",
            "token-bucket");
    static final List<String> PEERS = List.of("bucket4j", "guava", "resilience4j", "smallrye-rolling");
    /**
     * Run only when named ({@code -Dbench.impl=...}): the sliding log's new Decision, and a hot key's local path on the Redis
     * stack ({@code sliding-log-ahead}, {@link InProcessBench}).
     */
    static final List<String> ON_REQUEST = List.of("sliding-log-record", "sliding-log-ahead");

    /**
     * The JMH runs of one thread count: Slidegate (which finds its key itself) once, the peers in both views, and
     * SmallRye's rolling window without 10^7/s over 10 000 keys (it keeps one long per permit: 800 GB).
     */
    private static List<Map<String, String[]>> plan() {
        String[] peersButSmallRye = PEERS.stream().filter(p -> !p.startsWith("smallrye")).toArray(String[]::new);
        return List.of(
                Map.of("impl", java.util.stream.Stream.concat(SLIDEGATE.stream(), ON_REQUEST.stream()).toArray(String[]::new),
                        "view", new String[] { "map" }),
                Map.of("impl", peersButSmallRye, "view", new String[] { "map", "bare" }),
                Map.of("impl", new String[] { "smallrye-rolling" }, "view", new String[] { "map", "bare" }, "keys",
                        new String[] { "1" }),
                Map.of("impl", new String[] { "smallrye-rolling" }, "view", new String[] { "map", "bare" }, "keys",
                        new String[] { "10000" }, "perSecond", new String[] { "100" }));
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
            for (Map<String, String[]> part : plan()) {
                Map<String, String[]> params = new LinkedHashMap<>(part);
                if (only != null) {
                    only.forEach((name, values) -> params.merge(name, values, InProcessBenchmark::both));
                }
                if (only == null || !only.containsKey("impl")) {
                    params.computeIfPresent("impl",
                            (name, values) -> java.util.Arrays.stream(values).filter(v -> !ON_REQUEST.contains(v))
                                    .toArray(String[]::new));
                }
                if (params.values().stream().anyMatch(v -> v.length == 0)) {
                    continue;
                }
                ChainedOptionsBuilder options = new OptionsBuilder().include(InProcessBench.class.getName() + ".decide")
                        .forks(forks).warmupIterations(warmups).measurementIterations(iterations)
                        .warmupTime(TimeValue.milliseconds((long) (seconds * 1000)))
                        .measurementTime(TimeValue.milliseconds((long) (seconds * 1000)))
                        .threads(threads).addProfiler(GCProfiler.class).jvmArgsAppend("-Xms2g", "-Xmx2g")
                        .shouldFailOnError(true);
                params.forEach(options::param);
                Collection<RunResult> results = new Runner(options.build()).run();
                for (RunResult r : results) {
                    var p = r.getParams();
                    Result<?> primary = r.getPrimaryResult();
                    Result<?> alloc = r.getSecondaryResults().get("gc.alloc.rate.norm");
                    String impl = p.getParam("impl");
                    rows.add(new Row(impl, isPeer(impl) ? p.getParam("view") : "store", threads,
                            Integer.parseInt(p.getParam("perSecond")), Integer.parseInt(p.getParam("keys")),
                            primary.getScore() / 1e6, primary.getScoreError() / 1e6,
                            alloc == null ? Double.NaN : alloc.getScore()));
                }
            }
        }
        if (chart != null) {
            writeChart(rows, chart);
        }
        return report(rows);
    }

    /** The values in both {@code a} and {@code b}. */
    private static String[] both(String[] a, String[] b) {
        List<String> in = List.of(b);
        return java.util.Arrays.stream(a).filter(in::contains).toArray(String[]::new);
    }

    private static String report(List<Row> rows) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT,
                "In-process decisions, JMH (JDK %s), million calls/s (± 99.9%% error), bytes allocated per call%n%n",
                System.getProperty("java.version")));
        sb.append("| implementation | found by | threads | keys | 100/s | 10 000 000/s | B/call (100/s, 10^7/s) |\n"
                + "|---|---|---|---|---|---|---|\n");
        Map<String, Row[]> byConfig = new LinkedHashMap<>();
        for (Row r : rows) {
            byConfig.computeIfAbsent(r.impl() + "|" + r.view() + "|" + r.threads() + "|" + r.keys(),
                    k -> new Row[2])[r.perSecond() == 100 ? 0 : 1] = r;
        }
        byConfig.forEach((k, pair) -> {
            Row any = pair[0] != null ? pair[0] : pair[1];
            sb.append(String.format(Locale.ROOT, "| %s | %s | %d | %d | %s | %s | %s, %s |%n", label(any.impl()),
                    viewLabel(any.view()), any.threads(), any.keys(), score(pair[0]), score(pair[1]), bytes(pair[0]),
                    bytes(pair[1])));
        });
        sb.append('\n').append(ratios(rows));
        return sb.toString();
    }

    private static String viewLabel(String view) {
        return switch (view) {
            case "map" -> "String key in a map";
            case "bare" -> "array index";
            default -> "its own String key";
        };
    }

    /**
     * Issue 37's goal, as ratios within this run: each Slidegate strategy's {@code tryAcquire} over the best peer of
     * the same configuration, with the peers in a map and bare; and {@code decide} over {@code tryAcquire}.
     */
    static String ratios(List<Row> rows) {
        StringBuilder sb = new StringBuilder(
                "Ratios, same run: each strategy ÷ the best peer of the same threads, keys and limit "
                        + "(peers in a map / peers bare); goal ≥ 1.15×\n\n"
                        + "| strategy | threads | keys | 100/s (refusing) | 10^7/s (admitting) |\n|---|---|---|---|---|\n");
        for (String strategy : SLIDEGATE.stream().filter(s -> !s.endsWith("-decision")).toList()) {
            for (int threads : new int[] { 1, 2 }) {
                for (int keys : new int[] { 1, 10_000 }) {
                    String refusing = versusBest(rows, strategy, threads, 100, keys);
                    String admitting = versusBest(rows, strategy, threads, 10_000_000, keys);
                    if (!refusing.isEmpty() || !admitting.isEmpty()) {
                        sb.append(String.format(Locale.ROOT, "| %s | %d | %d | %s | %s |%n", strategy, threads, keys,
                                refusing, admitting));
                    }
                }
            }
        }
        sb.append('\n');
        for (int limit : new int[] { 100, 10_000_000 }) {
            Row full = find(rows, "sliding-log-decision", "store", 1, limit, 1);
            Row bare = find(rows, "sliding-log", "store", 1, limit, 1);
            if (full != null && bare != null) {
                sb.append(String.format(Locale.ROOT, "- sliding-log decide ÷ tryAcquire at %s/s: %.2f× (goal ≥ 0.8×)%n",
                        limit == 100 ? "100" : "10^7", full.mops() / bare.mops()));
            }
        }
        return sb.toString();
    }

    /** {@code "1.21× (guava) / 1.02× (bucket4j)"}: the strategy over the best peer in a map, then bare. */
    private static String versusBest(List<Row> rows, String strategy, int threads, int limit, int keys) {
        Row ours = find(rows, strategy, "store", threads, limit, keys);
        if (ours == null) {
            return "";
        }
        List<String> parts = new ArrayList<>();
        for (String view : List.of("map", "bare")) {
            rows.stream().filter(r -> isPeer(r.impl()) && r.view().equals(view) && r.threads() == threads
                    && r.perSecond() == limit && r.keys() == keys).max(java.util.Comparator.comparingDouble(Row::mops))
                    .ifPresent(best -> parts.add(String.format(Locale.ROOT, "%.2f× (%s)", ours.mops() / best.mops(),
                            best.impl())));
        }
        return String.join(" / ", parts);
    }

    static Row find(List<Row> rows, String impl, String view, int threads, int perSecond, int keys) {
        return rows.stream()
                .filter(r -> r.impl().equals(impl) && r.view().equals(view) && r.threads() == threads
                        && r.perSecond() == perSecond && r.keys() == keys)
                .findFirst().orElse(null);
    }

    private static void writeChart(List<Row> rows, Path file) {
        List<Chart.Group> groups = new ArrayList<>();
        for (int limit : new int[] { 100, 10_000_000 }) {
            for (int threads : new int[] { 1, 2 }) {
                List<Chart.Bar> bars = new ArrayList<>();
                for (Row r : rows) {
                    if (r.perSecond() == limit && r.threads() == threads && r.keys() == 1 && !r.view().equals("bare")) {
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
        return PEERS.contains(impl);
    }

    private static String label(String impl) {
        return switch (impl) {
            case "bucket4j" -> "Bucket4j";
            case "guava" -> "Guava RateLimiter";
            case "resilience4j" -> "Resilience4j Atomic";
            case "smallrye-rolling" -> "SmallRye FT rolling";
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
