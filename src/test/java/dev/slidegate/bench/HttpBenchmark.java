package dev.slidegate.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import dev.slidegate.it.ServiceProcess;
import dev.slidegate.testing.RedisServer;

/**
 * HTTP throughput with {@code wrk} against {@code GET /api/products} of the packaged jar, one run after
 * the other on this machine: the limiter switched off ({@code slidegate.enabled=false}), on with the
 * memory store, on with the Redis store (a redis-server this benchmark starts), with limits that
 * refuse nothing; then with limits that refuse about 90%.
 *
 * <pre>
 * ./mvnw -B package -DskipTests && ./mvnw test -Dtest=HttpBenchmark
 * </pre>
 *
 * Settings: {@code -Dbench.seconds=10 -Dbench.connections=64 -Dbench.warmup=20} (seconds of wrk before
 * each measurement, so that the JIT has compiled the request path: with 5 s it was still compiling).
 * Besides requests per second it reads the CPU time the service (and redis-server) spent during
 * the measurement from {@code /proc}, and the service's context switches, per request. Writes {@code target/bench/http.md} and
 * {@code docs/bench/http.svg}. Not part of the suite: {@code HttpBenchmarkSmokeIT} runs it for a second each.
 */
class HttpBenchmark {

    @Test
    @org.junit.jupiter.api.Timeout(value = 30, unit = java.util.concurrent.TimeUnit.MINUTES) // 11 runs of 30 s and starts
    void measure() throws Exception {
        String report = run(Integer.getInteger("bench.seconds", 10), WARMUP, Integer.getInteger("bench.connections", 64),
                Path.of("docs/bench/http.svg"));
        System.out.println(report);
        Files.createDirectories(Path.of("target/bench"));
        Files.writeString(Path.of("target/bench/http.md"), report);
    }

    /** One wrk run: requests per second, responses other than 2xx, and latency percentiles (as wrk prints them). */
    record Wrk(double perSecond, long requests, long non2xx, String p50, String p99, double clientMicros) {
    }

    /**
     * One measured configuration: the wrk run, and per request the service's and Redis's CPU (µs) and the service's context
     * switches.
     */
    record Run(Wrk wrk, double serviceMicros, double redisMicros, double switches, long scriptCalls, long rssKb) {

        double perSecond() {
            return wrk.perSecond();
        }
    }

    static final String NOTHING_REFUSED = "10000000/1s";

    static String run(int seconds, int warmup, int connections, Path chart) throws Exception {
        List<String[]> rows = new ArrayList<>();
        Run off;
        Run memory;
        Run redis;
        Run redisNoAhead;
        Run memoryRefusing;
        Run redisRefusing;
        Run offReactive;
        Run redisReactive;
        Run memoryFlood;
        Run redisFlood;
        try (RedisServer server = RedisServer.start()) {
            off = measure("/api/products", seconds, warmup, connections, null, "-Dslidegate.enabled=false",
                    "-Dslidegate.policies.products.limits=" + NOTHING_REFUSED);
            memory = measure("/api/products", seconds, warmup, connections, null, "-Dslidegate.store=memory",
                    "-Dslidegate.policies.products.limits=" + NOTHING_REFUSED);
            redis = measure("/api/products", seconds, warmup, connections, server, "-Dslidegate.store=redis",
                    "-Dquarkus.redis.hosts=" + server.uri(),
                    "-Dslidegate.policies.products.limits=" + NOTHING_REFUSED);
            // the same hot key decided call by call, as before permits were taken ahead (issue 61)
            redisNoAhead = measure("/api/products", seconds, warmup, connections, server, "-Dslidegate.store=redis",
                    "-Dquarkus.redis.hosts=" + server.uri(), "-Dslidegate.redis.take-ahead=false",
                    "-Dslidegate.policies.products.limits=" + NOTHING_REFUSED);
            // about 10% admitted: a tenth of what the unlimited run served, per window as long as the measurement
            // (10 s in the real run; a short smoke run still refuses however slow its cold start)
            String tenth = Math.max(1, (long) (memory.perSecond() * seconds / 10)) + "/" + seconds + "s";
            memoryRefusing = measure("/api/products", seconds, warmup, connections, null, "-Dslidegate.store=memory",
                    "-Dslidegate.policies.products.limits=" + tenth);
            String tenthRedis = Math.max(1, (long) (redis.perSecond() * seconds / 10)) + "/" + seconds + "s";
            redisRefusing = measure("/api/products", seconds, warmup, connections, server, "-Dslidegate.store=redis",
                    "-Dquarkus.redis.hosts=" + server.uri(),
                    "-Dslidegate.policies.products.limits=" + tenthRedis);
            // a caller over its limit flooding the endpoint (5 a minute): every request after the 5th is refused
            memoryFlood = measure("/api/products", seconds, warmup, connections, null, "-Dslidegate.store=memory",
                    "-Dslidegate.policies.products.limits=5/60s");
            redisFlood = measure("/api/products", seconds, warmup, connections, server, "-Dslidegate.store=redis",
                    "-Dquarkus.redis.hosts=" + server.uri(), "-Dslidegate.policies.products.limits=5/60s");
            // the same pair on the reactive endpoint (Uni): no worker thread waits for Redis
            offReactive = measure("/api/products/reactive", seconds, warmup, connections, null, "-Dslidegate.enabled=false",
                    "-Dslidegate.policies.products.limits=" + NOTHING_REFUSED);
            redisReactive = measure("/api/products/reactive", seconds, warmup, connections, server, "-Dslidegate.store=redis",
                    "-Dquarkus.redis.hosts=" + server.uri(), "-Dslidegate.policies.products.limits=" + NOTHING_REFUSED);
        }
        rows.add(row("limiter off (`slidegate.enabled=false`)", off, off));
        rows.add(row("memory store, nothing refused", memory, off));
        rows.add(row("Redis store, nothing refused", redis, off));
        rows.add(row("Redis store, nothing refused, take-ahead off (a script call per decision)", redisNoAhead, off));
        rows.add(row("memory store, ~90% refused (429)", memoryRefusing, off));
        rows.add(row("Redis store, ~90% refused (429)", redisRefusing, off));
        rows.add(row("memory store, a caller over its limit (5/60s) flooding", memoryFlood, off));
        rows.add(row("Redis store, a caller over its limit (5/60s) flooding", redisFlood, off));
        rows.add(row("`/api/products/reactive`, limiter off", offReactive, offReactive));
        rows.add(row("`/api/products/reactive`, Redis store, nothing refused", redisReactive, offReactive));
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT,
                "wrk -t2 -c%d -d%ds --latency against GET /api/products (one client IP: one hot key), after %d s of warm-up, packaged jar, JDK %s%n%n",
                connections, seconds, warmup, System.getProperty("java.version")));
        sb.append(
                "| configuration | requests/s | ÷ limiter off (same endpoint) | non-2xx | p50 | p99 | service CPU µs/request | Redis CPU µs/request "
                        + "| service context switches/request | wrk CPU µs/request |\n|---|---|---|---|---|---|---|---|---|---|\n");
        rows.forEach(r -> sb.append("| ").append(String.join(" | ", r)).append(" |\n"));
        sb.append(String.format(Locale.ROOT,
                "%nOne hot key on Redis, nothing refused: %.2f× the limiter off with permits taken ahead, %.2f× without; Redis "
                        + "script calls per admitted request (INFO commandstats, the instance count's renewals included): %.4f "
                        + "(%,d for %,d), without: %.4f%n",
                redis.perSecond() / off.perSecond(), redisNoAhead.perSecond() / off.perSecond(),
                redis.scriptCalls() / (double) Math.max(1, redis.wrk().requests() - redis.wrk().non2xx()),
                redis.scriptCalls(), redis.wrk().requests() - redis.wrk().non2xx(),
                redisNoAhead.scriptCalls()
                        / (double) Math.max(1, redisNoAhead.wrk().requests() - redisNoAhead.wrk().non2xx())));
        sb.append(String.format(Locale.ROOT, "%nA refused request ÷ an admitted one (throughput): memory %.2f×, Redis %.2f×%n",
                memoryRefusing.perSecond() / memory.perSecond(), redisRefusing.perSecond() / redis.perSecond()));
        sb.append(String.format(Locale.ROOT,
                "%nA caller over its limit flooding, Redis ÷ memory store (throughput): %.2f×; Redis script calls during the measurement "
                        + "(INFO commandstats, the instance count's renewals included): %,d for %,d refused requests, %.5f per refused request%n",
                redisFlood.perSecond() / memoryFlood.perSecond(), redisFlood.scriptCalls(), redisFlood.wrk().non2xx(),
                redisFlood.scriptCalls() / (double) Math.max(1, redisFlood.wrk().non2xx())));
        long admitted = redisRefusing.wrk().requests() - redisRefusing.wrk().non2xx();
        sb.append(String.format(Locale.ROOT,
                "%nRefusal-heavy, Redis ÷ memory store (throughput): %.2f×. Redis script calls (INFO commandstats; the instance count's "
                        + "renewals included): %,d for %,d admitted and %,d refused requests, so %.4f per refused request beyond "
                        + "one per admitted one%n",
                redisRefusing.perSecond() / memoryRefusing.perSecond(), redisRefusing.scriptCalls(), admitted,
                redisRefusing.wrk().non2xx(),
                Math.max(0, redisRefusing.scriptCalls() - admitted) / (double) Math.max(1, redisRefusing.wrk().non2xx())));
        if (chart != null) {
            Chart.write(chart, "HTTP requests per second, GET /api/products (wrk; thousands; higher is better)", "k/s", List.of(
                    new Chart.Group("nothing refused", List.of(new Chart.Bar("limiter off", off.perSecond() / 1000, false),
                            new Chart.Bar("memory store", memory.perSecond() / 1000, true),
                            new Chart.Bar("Redis store", redis.perSecond() / 1000, true))),
                    new Chart.Group("reactive endpoint, nothing refused",
                            List.of(new Chart.Bar("limiter off", offReactive.perSecond() / 1000, false),
                                    new Chart.Bar("Redis store", redisReactive.perSecond() / 1000, true))),
                    new Chart.Group("about 90% refused",
                            List.of(new Chart.Bar("memory store", memoryRefusing.perSecond() / 1000, true),
                                    new Chart.Bar("Redis store", redisRefusing.perSecond() / 1000, true)))));
        }
        return sb.toString();
    }

    private static String[] row(String name, Run r, Run off) {
        Wrk w = r.wrk();
        return new String[] { name, String.format(Locale.ROOT, "%,.0f", w.perSecond()),
                String.format(Locale.ROOT, "**%.2f**", w.perSecond() / off.perSecond()),
                String.format(Locale.ROOT, "%,d of %,d", w.non2xx(), w.requests()), w.p50(), w.p99(),
                String.format(Locale.ROOT, "%.1f", r.serviceMicros()),
                r.redisMicros() < 0 ? "–" : String.format(Locale.ROOT, "%.1f", r.redisMicros()),
                String.format(Locale.ROOT, "%.2f", r.switches()),
                String.format(Locale.ROOT, "%.1f", w.clientMicros()) };
    }

    static final int WARMUP = Integer.getInteger("bench.warmup", 20);

    /** Starts the jar with {@code properties}, warms it up, then measures one wrk run. */
    static Run measure(String path, int seconds, int warmup, int connections, RedisServer redis, String... properties)
            throws IOException, InterruptedException {
        return measure(null, path, seconds, warmup, connections, redis, properties);
    }

    /** As above, with the service run by {@code launcher} (null: the jar, or what the build made). */
    static Run measure(ServiceProcess.Launcher launcher, String path, int seconds, int warmup, int connections,
            RedisServer redis, String... properties) throws IOException, InterruptedException {
        List<String> props = new ArrayList<>(List.of(properties));
        props.add("-Dquarkus.log.level=WARN");
        props.add("-Dquarkus.log.category.\"io.quarkus\".level=INFO"); // the start-up line ServiceProcess waits for
        String[] all = props.toArray(String[]::new);
        try (ServiceProcess service = launcher == null ? ServiceProcess.start(all) : ServiceProcess.start(launcher, all)) {
            String url = "http://127.0.0.1:" + service.port + path;
            if (warmup > 0) {
                wrk(url, warmup, connections); // warm-up (JIT)
            }
            long serviceBefore = cpuTicks(service.pid());
            long redisBefore = redis == null ? 0 : cpuTicks(redis.pid());
            long switchesBefore = contextSwitches(service.pid());
            long scriptsBefore = redis == null ? -1 : redis.scriptCalls();
            Wrk w = wrk(url, seconds, connections);
            double perRequest = 1e6 / TICKS_PER_SECOND / Math.max(1, w.requests());
            return new Run(w, (cpuTicks(service.pid()) - serviceBefore) * perRequest,
                    redis == null ? -1 : (cpuTicks(redis.pid()) - redisBefore) * perRequest,
                    (contextSwitches(service.pid()) - switchesBefore) / (double) Math.max(1, w.requests()),
                    redis == null ? -1 : redis.scriptCalls() - scriptsBefore, residentKb(service.pid()));
        }
    }

    /** Linux's clock ticks per second for /proc times (USER_HZ, 100 on every common configuration). */
    static final int TICKS_PER_SECOND = 100;

    /**
     * User plus system CPU time of a process so far, in clock ticks ({@code /proc/<pid>/stat} fields 14 and 15); 0 where there
     * is no /proc.
     */
    static long cpuTicks(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(f[11]) + Long.parseLong(f[12]); // fields 14 and 15, counted after "pid (comm) "
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /** The resident memory of a process now (VmRSS of {@code /proc/<pid>/status}), in kB; 0 where there is no /proc. */
    static long residentKb(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException | RuntimeException e) {
            // no /proc
        }
        return 0;
    }

    /** Voluntary and involuntary context switches of all threads of a process so far; 0 where there is no /proc. */
    static long contextSwitches(long pid) {
        long sum = 0;
        try (var tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            for (Path t : tasks.toList()) {
                try {
                    for (String line : Files.readAllLines(t.resolve("status"))) {
                        if (line.contains("ctxt_switches:")) {
                            sum += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                        }
                    }
                } catch (IOException | RuntimeException e) {
                    // a thread that ended meanwhile
                }
            }
        } catch (IOException | RuntimeException e) {
            return 0;
        }
        return sum;
    }

    static Wrk wrk(String url, int seconds, int connections) throws IOException, InterruptedException {
        // through bash, whose `times` then prints the CPU time wrk (its child) used: user and system
        Process p = new ProcessBuilder("bash", "-c",
                "wrk -t2 -c" + connections + " -d" + seconds + "s --latency '" + url + "'; times")
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        double rps = Double.parseDouble(find(out, "Requests/sec:\\s+([0-9.]+)", "0"));
        long requests = Long.parseLong(find(out, "([0-9]+) requests in", "0"));
        long non2xx = Long.parseLong(find(out, "Non-2xx or 3xx responses:\\s+([0-9]+)", "0"));
        if (requests == 0) {
            throw new IllegalStateException("wrk said: " + out);
        }
        Matcher times = Pattern.compile("(\\d+)m([0-9.]+)s (\\d+)m([0-9.]+)s\\s*$").matcher(out.strip());
        double cpuSeconds = times.find() ? Integer.parseInt(times.group(1)) * 60 + Double.parseDouble(times.group(2))
                + Integer.parseInt(times.group(3)) * 60 + Double.parseDouble(times.group(4)) : Double.NaN;
        return new Wrk(rps, requests, non2xx, find(out, "\\s50%\\s+(\\S+)", "?"), find(out, "\\s99%\\s+(\\S+)", "?"),
                cpuSeconds * 1e6 / requests);
    }

    private static String find(String text, String regex, String otherwise) {
        Matcher m = Pattern.compile(regex).matcher(text);
        return m.find() ? m.group(1) : otherwise;
    }
}
