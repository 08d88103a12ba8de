package dev.slidegate.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import dev.slidegate.api.Limit;
import dev.slidegate.api.Policy;
import dev.slidegate.api.Strategy;
import dev.slidegate.core.Clock;
import dev.slidegate.testing.Brackets;
import dev.slidegate.testing.LoadOracle;

/**
 * The in-process bound under contention, judged by the callers' clocks (STYLE.md 6): 4 threads call
 * one key of 100/500 ms back to back for 1.5 s, rest 0.6 s (every permit leaves), then hammer again
 * for 1 s. Each grant is bracketed by {@link System#nanoTime()} just before and just after the call;
 * no 500 ms interval may provably hold more than 100. The store runs on the shipped system clock.
 *
 * <p>
 * Before the fix this failed with 101-104: the clock truncates to whole microseconds, the log freed
 * a permit at tick t + W, and callers hammering the key landed on exactly that tick, less than W after
 * the permit in real time.
 */
class ContentionTest {

    private static final int N = 100;
    private static final long W_NANOS = 500_000_000L;
    private static final int THREADS = 4;

    @ParameterizedTest(name = "{0} through {1}")
    @CsvSource({ "SLIDING_LOG, tryAcquire", "SLIDING_LOG, decide", "SLIDING_COUNTER, tryAcquire", "SLIDING_COUNTER, decide" })
    void noWindowProvablyHoldsMoreThanN(Strategy strategy, String entry) throws InterruptedException {
        MemoryStore store = new MemoryStore(Clock.system(), 1000);
        Policy p = new Policy("hot", List.of(Limit.parse(N + "/500ms")), strategy, "ip", false);
        boolean viaDecide = entry.equals("decide");
        LoadOracle.Attempt attempt = viaDecide ? () -> store.decide(p, "k", 1).allowed() : () -> store.tryAcquire(p, "k", 1);
        LoadOracle.Hammered run = LoadOracle.hammerAroundAPause(attempt, N, W_NANOS, 3 * W_NANOS, THREADS);
        Brackets hammered = run.beforePause();
        Brackets afterPause = run.afterPause();
        int provable = run.maxProvable();
        String what = strategy + " via " + entry + ": " + hammered.size() + " grants in 3 W, " + afterPause.size()
                + " in 2 W after a pause, at most " + provable + " provably inside one interval of W = 500 ms";
        System.out.println(what);
        assertTrue(provable <= N, what);
        // exact, not over-cautious: a caller who keeps asking gets (nearly) N per window
        int minimum = strategy == Strategy.SLIDING_LOG ? 3 * N : 3 * N * 8 / 10;
        assertTrue(hammered.size() >= minimum, what);
        assertEquals(N, afterPause.maxProvable(W_NANOS), "after the pause the full N is there again at once: " + what);
    }
}
