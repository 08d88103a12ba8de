package dev.slidegate.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Policy;
import dev.slidegate.config.PolicyCatalog;
import dev.slidegate.config.StoreStack;
import dev.slidegate.testing.AdminCredentials;
import dev.slidegate.testing.RedisTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;

/**
 * The admin API at scale: {@code -Dadmin.bench.keys} (default 100 000) active keys in one policy on
 * Redis, then the time of the first page of 100 keys and of the summary, over HTTP, 30 times each
 * after 5 warm-up calls. Run it with
 *
 * <pre>
 * ./mvnw test -Dtest=AdminBenchmark
 * </pre>
 *
 * (not part of the suite; {@code AdminBenchmarkSmokeTest} runs it with 1 000 keys). Writes
 * target/admin-benchmark.md. It reports times, it asserts none.
 */
@QuarkusTest
@TestProfile(dev.slidegate.http.SharedProfiles.OnRedis.class)
public class AdminBenchmark {

    @Inject
    StoreStack stack;
    @Inject
    PolicyCatalog registry;

    @Test
    void measure() throws Exception {
        String report = run(stack, registry, Integer.getInteger("admin.bench.keys", 100_000), 30) + "\n"
                + isolation(stack, registry, 7_500, 50, Double.parseDouble(System.getProperty("admin.bench.seconds", "10")));
        Files.createDirectories(Path.of("target"));
        Files.writeString(Path.of("target", "admin-benchmark.md"), report);
        System.out.println(report);
    }

    /** Fills the keys, measures both endpoints and returns a Markdown table. */
    static String run(StoreStack stack, PolicyCatalog registry, int keys, int repetitions) {
        Policy bench = registry.policies().get("bench").policy();
        fill(stack, bench, keys);
        long counted = AdminCredentials.admin().get("/admin").jsonPath()
                .getLong("policies.find { it.name == 'bench' }.activeKeys");
        if (counted != keys) {
            throw new IllegalStateException("the summary counts " + counted + " keys, not " + keys);
        }
        double[] page = times("/admin/policies/bench/keys?limit=100", repetitions, 100);
        double[] summary = times("/admin", repetitions, -1);
        int rankings = Math.max(3, repetitions / 3);
        double[] byUsage = times("/admin/policies/bench/keys?limit=100&sort=usage", rankings, 100, 1100);
        List<Policy> all = registry.policies().values().stream().map(r -> r.policy()).toList();
        double[] scan = new double[Math.max(3, repetitions / 6)];
        for (int i = 0; i < scan.length; i++) {
            long start = System.nanoTime();
            stack.inspection().counts(all).toCompletableFuture().join();
            scan[i] = (System.nanoTime() - start) / 1e6;
        }
        Arrays.sort(scan);
        return String.format(Locale.ROOT,
                "Admin API over HTTP, %d active keys in one policy on Redis %s, %d calls each after 5 warm-up "
                        + "calls, milliseconds:%n%n| request | median | p95 | max |%n|---|---|---|---|%n| first page of 100 keys | %.1f | %.1f | %.1f |%n"
                        + "| summary (`GET /admin`; active keys from a count at most 1 s old) | %.1f | %.1f | %.1f |%n"
                        + "| first page by usage (`sort=usage`: every key read and ranked; %d calls 1.1 s apart, so each ranks afresh) | %.1f | %.1f | %.1f |%n"
                        + "| the count itself: one SCAN pass over every key, all %d policies (%d runs, in the background) | %.1f | — | %.1f |%n",
                keys, RedisTestResource.server().version(), repetitions, page[0], page[1], page[2], summary[0], summary[1],
                summary[2],
                rankings, byUsage[0], byUsage[1], byUsage[2],
                all.size(), scan.length, scan[scan.length / 2], scan[scan.length - 1]);
    }

    /**
     * What the admin costs the API, side by side in one run: {@code keys} active keys of the {@code bench}
     * policy (fail mode closed, so a decision Redis could not make is a 503), 8 callers requesting
     * {@code /bench/…} with random keys of it back to back for {@code seconds}, first alone, then while
     * {@code pages} live pages stream and 2 operators list the keys by usage (1000 a page) in a loop.
     */
    static String isolation(StoreStack stack, PolicyCatalog registry, int keys, int pages, double seconds)
            throws Exception {
        Policy bench = registry.policies().get("bench").policy();
        fill(stack, bench, keys);
        String base = "http://localhost:" + io.restassured.RestAssured.port;
        String auth = AdminCredentials.basicHeader();
        java.net.http.HttpClient http = java.net.http.HttpClient.newBuilder().version(java.net.http.HttpClient.Version.HTTP_1_1)
                .build();
        Api quiet = api(http, base, keys, seconds);
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicLong events = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicLong listings = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicLong listingFailures = new java.util.concurrent.atomic.AtomicLong();
        List<java.io.InputStream> streams = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < pages; i++) {
            java.net.http.HttpResponse<java.io.InputStream> page = http.send(
                    java.net.http.HttpRequest.newBuilder(java.net.URI.create(base + "/admin/stream"))
                            .header("Authorization", auth)
                            .header("Accept", "text/event-stream").build(),
                    java.net.http.HttpResponse.BodyHandlers.ofInputStream());
            if (page.statusCode() != 200) {
                throw new IllegalStateException("the live page's stream answered " + page.statusCode());
            }
            java.io.InputStream in = page.body();
            streams.add(in);
            threads.add(daemon(() -> {
                try (java.io.BufferedReader r = new java.io.BufferedReader(
                        new java.io.InputStreamReader(in, java.nio.charset.StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = r.readLine()) != null) {
                        if (line.startsWith("data:")) {
                            events.incrementAndGet();
                        }
                    }
                } catch (java.io.IOException closed) {
                    // the stream was closed at the end
                }
            }));
        }
        for (int i = 0; i < 2; i++) {
            threads.add(daemon(() -> {
                while (!stop.get()) {
                    try {
                        int status = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(base
                                + "/admin/policies/bench/keys?sort=usage&limit=1000")).header("Authorization", auth).build(),
                                java.net.http.HttpResponse.BodyHandlers.discarding()).statusCode();
                        (status == 200 ? listings : listingFailures).incrementAndGet();
                    } catch (Exception e) {
                        listingFailures.incrementAndGet();
                    }
                }
            }));
        }
        Thread.sleep(1000); // every page has its first event
        long eventsBefore = events.get();
        long listingsBefore = listings.get();
        Api busy = api(http, base, keys, seconds);
        long eventsDuring = events.get() - eventsBefore;
        long listingsDuring = listings.get() - listingsBefore;
        stop.set(true);
        for (java.io.InputStream in : streams) {
            in.close();
        }
        return String.format(Locale.ROOT,
                "The admin's cost to the API, one run: %d active keys of one policy on Redis %s (fail mode closed), 8 callers "
                        + "back to back on random keys of it for %.0f s each, first alone, then with %d live pages open and 2 "
                        + "operators listing the keys by usage (1000 a page) in a loop:%n%n"
                        + "| API run | requests | 5xx or no answer | p50 ms | p99 ms | admin work meanwhile |%n|---|---|---|---|---|---|%n"
                        + "| alone | %d | %d | %.2f | %.2f | — |%n"
                        + "| with the admin load | %d | %d | %.2f | %.2f | %d stream events (%.1f per page a second), %d listings by usage (%d failed) |%n"
                        + "%nAPI p99 with the admin load: %.2f× the run alone.%n",
                keys, RedisTestResource.server().version(), seconds, pages, quiet.requests, quiet.unavailable, quiet.p50,
                quiet.p99, busy.requests, busy.unavailable, busy.p50, busy.p99, eventsDuring,
                eventsDuring / (double) pages / seconds, listingsDuring, listingFailures.get(), busy.p99 / quiet.p99);
    }

    /**
     * One API run: how many requests, how many failed (a 503 of the fail mode or any other 5xx, or no answer), and the latency
     * percentiles in ms.
     */
    record Api(long requests, long unavailable, double p50, double p99) {
    }

    private static Api api(java.net.http.HttpClient http, String base, int keys, double seconds) throws Exception {
        long end = System.nanoTime() + (long) (seconds * 1e9);
        List<Thread> callers = new ArrayList<>();
        List<long[]> latencies = java.util.Collections.synchronizedList(new ArrayList<>());
        java.util.concurrent.atomic.AtomicLong unavailable = new java.util.concurrent.atomic.AtomicLong();
        for (int c = 0; c < 8; c++) {
            int caller = c;
            callers.add(daemon(() -> {
                java.util.Random random = new java.util.Random(caller);
                long[] mine = new long[1 << 20];
                int n = 0;
                while (System.nanoTime() < end && n < mine.length) {
                    java.net.http.HttpRequest request = java.net.http.HttpRequest
                            .newBuilder(java.net.URI.create(base + "/bench/x"))
                            .header("X-Bench", "client-" + random.nextInt(keys))
                            .build();
                    long start = System.nanoTime();
                    try {
                        int status = http.send(request, java.net.http.HttpResponse.BodyHandlers.discarding()).statusCode();
                        // the path policy decides, then the path has no endpoint (404) or the key is used up (429): a
                        // 503 of the fail mode or any other 5xx is a failure
                        if (status >= 500) {
                            unavailable.incrementAndGet();
                        }
                    } catch (Exception e) {
                        unavailable.incrementAndGet();
                    }
                    mine[n++] = System.nanoTime() - start;
                }
                latencies.add(Arrays.copyOf(mine, n));
            }));
        }
        for (Thread t : callers) {
            t.join();
        }
        long[] all = latencies.stream().flatMapToLong(Arrays::stream).sorted().toArray();
        return new Api(all.length, unavailable.get(), all[all.length / 2] / 1e6,
                all[(int) Math.ceil(all.length * 0.99) - 1] / 1e6);
    }

    private static Thread daemon(Runnable work) {
        Thread t = new Thread(work);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static void fill(StoreStack stack, Policy bench, int keys) {
        for (int from = 0; from < keys; from += 500) {
            List<CompletableFuture<Decision>> batch = new ArrayList<>();
            for (int i = from; i < Math.min(keys, from + 500); i++) {
                batch.add(stack.decisions().acquire(bench, "hdr:client-" + i, 1 + i % 9).toCompletableFuture());
            }
            batch.forEach(CompletableFuture::join);
        }
    }

    /** Median, p95 and max in milliseconds; checks each answer has {@code expectKeys} keys (-1: not a listing). */
    private static double[] times(String path, int repetitions, int expectKeys) {
        return times(path, repetitions, expectKeys, 0);
    }

    /** As above, waiting {@code pauseMs} before each call. */
    private static double[] times(String path, int repetitions, int expectKeys, long pauseMs) {
        double[] ms = new double[repetitions];
        for (int i = pauseMs > 0 ? -1 : -5; i < repetitions; i++) {
            if (pauseMs > 0) {
                try {
                    Thread.sleep(pauseMs);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
            long start = System.nanoTime();
            Response r = AdminCredentials.admin().accept("application/json").get(path);
            long nanos = System.nanoTime() - start;
            r.then().statusCode(200);
            if (expectKeys > 0 && r.jsonPath().getList("keys").size() != expectKeys) {
                throw new IllegalStateException(path + " answered " + r.jsonPath().getList("keys").size() + " keys");
            }
            if (i >= 0) {
                ms[i] = nanos / 1e6;
            }
        }
        Arrays.sort(ms);
        return new double[] { ms[repetitions / 2], ms[(int) Math.ceil(repetitions * 0.95) - 1], ms[repetitions - 1] };
    }
}
