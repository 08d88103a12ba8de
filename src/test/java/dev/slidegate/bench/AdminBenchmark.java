package dev.slidegate.bench;

import static io.restassured.RestAssured.given;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Policy;
import dev.slidegate.config.PolicyRegistry;
import dev.slidegate.core.LimiterStore;
import dev.slidegate.http.SmallLimits;
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
@TestProfile(AdminBenchmark.OnRedis.class)
public class AdminBenchmark {

    /** Redis, and a policy attached by configuration to a path nobody calls, keyed by a header. */
    public static class OnRedis extends SmallLimits {
        @Override
        public Map<String, String> getConfigOverrides() {
            return plus("slidegate.store", "redis", "slidegate.policies.bench.limits", "10/1h,50/1d",
                    "slidegate.policies.bench.key", "header:X-Bench", "slidegate.policies.bench.paths", "/bench/*");
        }

        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(RedisTestResource.class));
        }
    }

    @Inject
    LimiterStore store;
    @Inject
    PolicyRegistry registry;

    @Test
    void measure() throws Exception {
        String report = run(store, registry, Integer.getInteger("admin.bench.keys", 100_000), 30);
        Files.createDirectories(Path.of("target"));
        Files.writeString(Path.of("target", "admin-benchmark.md"), report);
        System.out.println(report);
    }

    /** Fills the keys, measures both endpoints and returns a Markdown table. */
    static String run(LimiterStore store, PolicyRegistry registry, int keys, int repetitions) {
        Policy bench = registry.policies().get("bench").policy();
        fill(store, bench, keys);
        long counted = given().auth().preemptive().basic("admin", "slidegate-demo").get("/admin").jsonPath()
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
            store.counts(all).toCompletableFuture().join();
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

    private static void fill(LimiterStore store, Policy bench, int keys) {
        for (int from = 0; from < keys; from += 500) {
            List<CompletableFuture<Decision>> batch = new ArrayList<>();
            for (int i = from; i < Math.min(keys, from + 500); i++) {
                batch.add(store.acquire(bench, "hdr:client-" + i, 1 + i % 9).toCompletableFuture());
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
            Response r = given().auth().preemptive().basic("admin", "slidegate-demo").accept("application/json").get(path);
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
