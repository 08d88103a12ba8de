package dev.slidegate.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import com.google.common.util.concurrent.FutureCallback;
import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.MoreExecutors;

import dev.slidegate.it.ServiceProcess;
import dev.slidegate.testing.Ports;
import dev.slidegate.testing.RedisServer;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;

/**
 * Envoy's rate-limit service against HTTP decisions of the same policy, side by side in one run, on the packaged jar: one
 * instance with the in-process store, one on Redis, two on one Redis. The same limit (10^9 a minute, sliding log, one
 * key: every call admitted) is asked as {@code ShouldRateLimit} (Envoy's published stubs, 64 calls in flight on one
 * HTTP/2 connection per instance) and as {@code GET /api/reports} with {@code X-Api-Key} ({@code wrk}, 64
 * connections). Calls per second, and the latency at the 50th and 99th percentile of each.
 *
 * <pre>
 * ./mvnw -B package -DskipTests && ./mvnw test -Dtest=RlsBenchmark
 * </pre>
 *
 * Settings: {@code -Dbench.seconds=10 -Dbench.warmup=10}. Writes {@code target/bench/rls.md}. Not part of the suite.
 */
class RlsBenchmark {

    private static final int SECONDS = Integer.getInteger("bench.seconds", 10);
    private static final int WARMUP = Integer.getInteger("bench.warmup", 10);
    private static final int IN_FLIGHT = 64;

    /** One measurement: calls per second, and latency percentiles in milliseconds. */
    record Result(double perSecond, double p50, double p99, long errors) {
        String row(String name) {
            return String.format("| %s | %,.0f | %.2f | %.2f | %d |", name, perSecond, p50, p99, errors);
        }
    }

    @Test
    @org.junit.jupiter.api.Timeout(value = 20, unit = TimeUnit.MINUTES)
    void measure() throws Exception {
        Path rules = Files.createTempFile("bench", ".yaml");
        Files.writeString(rules, """
                domain: bench
                descriptors:
                  - key: api_key
                    rate_limit:
                      unit: minute
                      requests_per_unit: 1000000000
                """);
        List<String> rows = new ArrayList<>();
        rows.add("| run | calls/s | p50 ms | p99 ms | errors |");
        rows.add("|---|---|---|---|---|");
        String policy = "-Dslidegate.policies.reports.limits=1000000000/1m";
        try {
            int port = Ports.free();
            try (ServiceProcess s = ServiceProcess.start(policy, "-Dslidegate.rls.config=" + rules,
                    "-Dslidegate.rls.port=" + port, "-Dquarkus.log.level=WARN",
                    "-Dquarkus.log.category.\"io.quarkus\".level=INFO")) {
                rows.add(http(List.of(s)).row("memory, HTTP (wrk)"));
                rows.add(grpc(new int[] { port }).row("memory, ShouldRateLimit"));
            }
            try (RedisServer redis = RedisServer.start()) {
                int[] ports = { Ports.free(), Ports.free() };
                String hosts = "-Dquarkus.redis.hosts=" + redis.uri();
                try (ServiceProcess s = ServiceProcess.start(policy, hosts, "-Dslidegate.rls.config=" + rules,
                        "-Dslidegate.rls.port=" + ports[0], "-Dquarkus.log.level=WARN",
                        "-Dquarkus.log.category.\"io.quarkus\".level=INFO")) {
                    rows.add(http(List.of(s)).row("Redis, one instance, HTTP (wrk)"));
                    rows.add(grpc(new int[] { ports[0] }).row("Redis, one instance, ShouldRateLimit"));
                }
                try (ServiceProcess.Fleet fleet = ServiceProcess.fleet(List.of(
                        new String[] { policy, hosts, "-Dslidegate.rls.config=" + rules, "-Dslidegate.rls.port=" + ports[0],
                                "-Dquarkus.log.level=WARN", "-Dquarkus.log.category.\"io.quarkus\".level=INFO" },
                        new String[] { policy, hosts, "-Dslidegate.rls.config=" + rules, "-Dslidegate.rls.port=" + ports[1],
                                "-Dquarkus.log.level=WARN", "-Dquarkus.log.category.\"io.quarkus\".level=INFO" }))) {
                    rows.add(http(fleet.instances()).row("Redis, two instances, HTTP (wrk each)"));
                    rows.add(grpc(ports).row("Redis, two instances, ShouldRateLimit"));
                }
            }
        } finally {
            Files.deleteIfExists(rules);
        }
        String report = String.join("\n", rows) + "\n";
        System.out.println(report);
        Files.createDirectories(Path.of("target/bench"));
        Files.writeString(Path.of("target/bench/rls.md"), report);
    }

    /** {@code ShouldRateLimit} with 64 calls in flight spread over the instances' listeners: warm-up, then measured. */
    private static Result grpc(int[] ports) throws InterruptedException {
        List<ManagedChannel> channels = new ArrayList<>();
        List<RateLimitServiceGrpc.RateLimitServiceFutureStub> stubs = new ArrayList<>();
        for (int port : ports) {
            ManagedChannel c = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
            channels.add(c);
            stubs.add(RateLimitServiceGrpc.newFutureStub(c));
        }
        RateLimitRequest request = RateLimitRequest.newBuilder().setDomain("bench").addDescriptors(RateLimitDescriptor
                .newBuilder().addEntries(RateLimitDescriptor.Entry.newBuilder().setKey("api_key").setValue("bench"))).build();
        try {
            drive(stubs, request, WARMUP, null);
            long[] latencies = new long[4_000_000];
            AtomicLong count = new AtomicLong();
            long[] errors = new long[1];
            long start = System.nanoTime();
            drive(stubs, request, SECONDS, (nanos, ok) -> {
                long i = count.getAndIncrement();
                if (i < latencies.length) {
                    latencies[(int) i] = nanos;
                }
                if (!ok) {
                    synchronized (errors) {
                        errors[0]++;
                    }
                }
            });
            double elapsed = (System.nanoTime() - start) / 1e9;
            int n = (int) Math.min(count.get(), latencies.length);
            long[] sorted = Arrays.copyOf(latencies, n);
            Arrays.sort(sorted);
            return new Result(n / elapsed, sorted[n / 2] / 1e6, sorted[(int) (n * 0.99)] / 1e6, errors[0]);
        } finally {
            for (ManagedChannel c : channels) {
                c.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        }
    }

    interface Done {
        void call(long nanos, boolean ok);
    }

    private static void drive(List<RateLimitServiceGrpc.RateLimitServiceFutureStub> stubs, RateLimitRequest request,
            int seconds, Done done) throws InterruptedException {
        Semaphore slots = new Semaphore(IN_FLIGHT);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        int i = 0;
        while (System.nanoTime() < end) {
            slots.acquire();
            long sent = System.nanoTime();
            Futures.addCallback(stubs.get(i++ % stubs.size()).shouldRateLimit(request),
                    new FutureCallback<RateLimitResponse>() {
                        @Override
                        public void onSuccess(RateLimitResponse r) {
                            if (done != null) {
                                done.call(System.nanoTime() - sent, r.getOverallCode() == RateLimitResponse.Code.OK);
                            }
                            slots.release();
                        }

                        @Override
                        public void onFailure(Throwable t) {
                            if (done != null) {
                                done.call(System.nanoTime() - sent, false);
                            }
                            slots.release();
                        }
                    }, MoreExecutors.directExecutor());
        }
        slots.acquire(IN_FLIGHT); // every call answered
    }

    /** {@code wrk} on each instance at once (64 connections in all), warm-up then measured; latencies of the first. */
    private static Result http(List<ServiceProcess> instances) throws IOException, InterruptedException {
        wrk(instances, WARMUP);
        return wrk(instances, SECONDS);
    }

    private static Result wrk(List<ServiceProcess> instances, int seconds) throws IOException, InterruptedException {
        List<Process> running = new ArrayList<>();
        for (ServiceProcess s : instances) {
            running.add(new ProcessBuilder("wrk", "-t1", "-c" + IN_FLIGHT / instances.size(), "-d" + seconds + "s", "--latency",
                    "-H", "X-Api-Key: bench", "http://127.0.0.1:" + s.port + "/api/reports").redirectErrorStream(true).start());
        }
        double perSecond = 0;
        long errors = 0;
        String first = null;
        for (Process p : running) {
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor();
            perSecond += Double.parseDouble(find(out, "Requests/sec:\\s+([0-9.]+)", "0"));
            errors += Long.parseLong(find(out, "Non-2xx or 3xx responses:\\s+([0-9]+)", "0"));
            first = first == null ? out : first;
        }
        return new Result(perSecond, millis(find(first, "\\s50%\\s+(\\S+)", "0ms")),
                millis(find(first, "\\s99%\\s+(\\S+)", "0ms")),
                errors);
    }

    /** wrk's latency ({@code 812.00us}, {@code 1.23ms}, {@code 2.01s}) in milliseconds. */
    private static double millis(String wrk) {
        Matcher m = Pattern.compile("([0-9.]+)(us|ms|s)").matcher(wrk);
        if (!m.matches()) {
            return Double.NaN;
        }
        double v = Double.parseDouble(m.group(1));
        return switch (m.group(2)) {
            case "us" -> v / 1000;
            case "ms" -> v;
            default -> v * 1000;
        };
    }

    private static String find(String text, String regex, String otherwise) {
        Matcher m = Pattern.compile(regex).matcher(text);
        return m.find() ? m.group(1) : otherwise;
    }
}
