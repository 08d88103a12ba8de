package dev.slidegate.bench;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import dev.slidegate.api.Decision;
import dev.slidegate.api.RateLimiter;
import dev.slidegate.http.SmallLimits;
import dev.slidegate.metrics.WaitStats;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * What holding calls costs (issue 38), in process, through the whole pipeline ({@link RateLimiter#acquire} with a
 * max-wait, the same Decider, waiting room and timers as an annotated endpoint): {@code bench.waiting} (10 000) calls
 * held at once on one key of a policy of 1 000 per second, and
 * <ul>
 * <li>the heap they hold while they wait, per waiting call (after a full GC, before and after they are queued);</li>
 * <li>the process CPU per call from its decision to its release, against a call admitted at once and a call refused at
 * once (each measured on the same run, same JVM, after warm-up);</li>
 * <li>how many were released per second while the queue drained: the limit, if nothing is lost to holding.</li>
 * </ul>
 *
 * <pre>
 * ./mvnw -B test -Dtest=WaitBenchmark
 * </pre>
 *
 * The report is printed and written to {@code target/wait-benchmark.md}.
 */
@QuarkusTest
@TestProfile(WaitBenchmark.Profile.class)
class WaitBenchmark {

    public static class Profile extends SmallLimits {
        @Override
        public Map<String, String> getConfigOverrides() {
            // the bench-* policies are SmallLimits'; room for every held call on one key (the shipped room holds 10 000,
            // 1 000 per key)
            return plus("slidegate.wait.max-waiting", "20000", "slidegate.wait.max-waiting-per-key", "20000");
        }
    }

    private static final int WAITING = Integer.getInteger("bench.waiting", 10_000);

    @Inject
    RateLimiter limiter;
    @Inject
    WaitStats stats;
    @Inject
    io.vertx.core.Vertx vertx;

    @Test
    void holdingCallsCostsLittleCpuAndFewBytes() throws Exception {
        String report = run(limiter, stats, vertx, WAITING, 3, 500_000);
        java.nio.file.Files.createDirectories(java.nio.file.Path.of("target"));
        java.nio.file.Files.writeString(java.nio.file.Path.of("target", "wait-benchmark.md"), report);
    }

    /**
     * The measurement: {@code waiting} calls held at once after {@code warmUps} rounds of every path, the at-once paths
     * measured over {@code decisions} calls each; returns the report.
     */
    static String run(RateLimiter limiter, WaitStats stats, io.vertx.core.Vertx vertx, int waiting, int warmUps,
            int decisions) throws Exception {
        return new WaitBenchmark().measure(limiter, stats, vertx, waiting, warmUps, decisions);
    }

    private String measure(RateLimiter limiter, WaitStats stats, io.vertx.core.Vertx vertx, int held, int warmUps,
            int decisions) throws Exception {
        this.limiter = limiter;
        final int WAITING = held;
        for (int round = 0; round < warmUps; round++) {
            cpuPerCall("bench-free", "warm-" + round, 200_000, Duration.ZERO);
            cpuPerCall("bench-refused", "warm", 200_000, Duration.ZERO);
            heldRound("warm-" + round, 2_000);
        }
        double free = cpuPerCall("bench-free", "k" + System.nanoTime(), decisions, Duration.ZERO);
        double refused = cpuPerCall("bench-refused", "k", decisions, Duration.ZERO);
        long before = usedAfterGc();
        long cpu0 = cpu();
        long t0 = System.nanoTime();
        List<CompletableFuture<Decision>> calls = queue("measured-" + System.nanoTime(), WAITING);
        long queued = System.nanoTime();
        int waiting = stats.waiting("bench-held");
        long during = usedAfterGc();
        // one wait for them all: the measuring thread is not woken once per call
        CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        long drained = System.nanoTime();
        long cpuUsed = cpu() - cpu0;
        // what the JVM spends doing nothing for as long (JIT, GC, Quarkus' own threads), taken out
        long idle0 = cpu();
        long i0 = System.nanoTime();
        Thread.sleep((drained - t0) / 1_000_000);
        double idlePerNano = (cpu() - idle0) / (double) (System.nanoTime() - i0);
        double idleCpu = idlePerNano * (drained - t0);
        double perHeld = (cpuUsed - idleCpu) / 1000.0 / (WAITING + 1000);
        // the platform's share: as many bare Vert.x timers, one a millisecond as the held calls' permits are, each doing
        // nothing but count down
        java.util.concurrent.CountDownLatch fired = new java.util.concurrent.CountDownLatch(WAITING);
        long bare0 = cpu();
        long b0 = System.nanoTime();
        for (int i = 0; i < WAITING; i++) {
            vertx.setTimer(1 + i, id -> fired.countDown());
        }
        fired.await(60, TimeUnit.SECONDS);
        double perTimer = (cpu() - bare0 - idlePerNano * (System.nanoTime() - b0)) / 1000.0 / WAITING;
        long admitted = calls.stream().filter(f -> f.join().allowed()).count();
        double seconds = (drained - queued) / 1e9;
        String report = String.format(Locale.ROOT, """
                | measure (one JVM, one run, %d calls held at once) | value |
                |---|---|
                | calls waiting at once (WaitStats) | %d |
                | calls admitted of %d (1 000 at once, the rest held) | %d |
                | heap held per waiting call (after full GC) | %.0f B |
                | process CPU per call admitted at once (no wait) | %.2f us |
                | process CPU per call refused at once | %.2f us |
                | process CPU of an idle JVM over the same time, taken out | %.0f ms |
                | process CPU per held call, decision to release | %.2f us |
                | added CPU per held call (held - admitted at once) | %.2f us |
                | of which a bare Vert.x timer, one a millisecond (the event loop's wake-up) | %.2f us |
                | released per second while draining (limit 1000/s) | %.0f |
                | time to queue %d calls | %.0f ms |
                """, WAITING, waiting, WAITING + 1000, admitted, (during - before) / (double) WAITING, free, refused,
                idleCpu / 1e6, perHeld,
                perHeld - free, perTimer,
                WAITING / seconds, WAITING, (queued - t0) / 1e6);
        System.out.println(report);
        return report;
    }

    /** The process CPU per call of {@code calls} decisions of one key, in microseconds. */
    private double cpuPerCall(String policy, String key, int calls, Duration maxWait) {
        long c0 = cpu();
        for (int i = 0; i < calls; i++) {
            limiter.acquireBlocking(policy, key, 1, maxWait);
        }
        return (cpu() - c0) / 1000.0 / calls;
    }

    private void heldRound(String key, int calls) throws Exception {
        for (CompletableFuture<Decision> f : queue(key, calls)) {
            f.get(60, TimeUnit.SECONDS);
        }
    }

    /** 1 000 calls admitted at once, then {@code calls} held: a second of permits per thousand. */
    private List<CompletableFuture<Decision>> queue(String key, int calls) {
        List<CompletableFuture<Decision>> all = new ArrayList<>(calls + 1000);
        Duration maxWait = Duration.ofSeconds(calls / 1000 + 5);
        for (int i = 0; i < calls + 1000; i++) {
            all.add(limiter.acquire("bench-held", key, 1, maxWait).toCompletableFuture());
        }
        return all;
    }

    private static long cpu() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private static long usedAfterGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
        }
        Runtime r = Runtime.getRuntime();
        return r.totalMemory() - r.freeMemory();
    }
}
