package dev.slidegate.bench;

import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import dev.slidegate.api.RateLimiter;
import dev.slidegate.metrics.WaitStats;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** The waiting benchmark, small (300 calls held, no warm-up): it keeps running, and every held call is admitted. */
@QuarkusTest
// the suite's shared profile: 300 calls held fit the shipped room (1 000 per key), and its policies are there
@TestProfile(dev.slidegate.http.SmallLimits.class)
class WaitBenchmarkSmokeTest {

    @Inject
    RateLimiter limiter;
    @Inject
    WaitStats stats;
    @Inject
    io.vertx.core.Vertx vertx;

    @Test
    void measure() throws Exception {
        String report = WaitBenchmark.run(limiter, stats, vertx, 300, 0, 1_000);
        assertTrue(report.contains("| calls waiting at once (WaitStats) | 300 |"), report);
        assertTrue(report.contains("| calls admitted of 1300 (1 000 at once, the rest held) | 1300 |"), report);
    }
}
