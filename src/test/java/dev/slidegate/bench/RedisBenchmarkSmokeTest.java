package dev.slidegate.bench;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

/**
 * The Redis benchmark for a fraction of a second per measurement: every part keeps running and reports a
 * figure. Alone, never beside the Redis store contracts that share its JVM (pom.xml).
 */
@org.junit.jupiter.api.parallel.Isolated
class RedisBenchmarkSmokeTest {

    @Test
    void runsEveryPart() throws Exception {
        dev.slidegate.testing.Tools.require("redis-benchmark", "RedisBenchmarkSmokeTest", "apt-get install redis-tools");
        Path chart = Path.of("target/bench/redis-smoke.svg");
        String report = RedisBenchmark.run(0.1, chart, true);
        System.out.println(report);
        for (String s : new String[] { "| sliding-log | 10 000 |", "| fixed-window | one hot key |",
                "| sliding-counter | 10 000 |",
                "| token-bucket | one hot key |", "| one hot key |", "(half of the ceiling)", "(a tenth of the ceiling)",
                "`PING` instead", "| sliding-log | 10,000 |" }) {
            assertTrue(report.contains(s), s + " missing from\n" + report);
        }
        assertTrue(!report.contains("errors)"), "no decision failed:\n" + report);
        assertTrue(Files.readString(chart).contains("Bucket4j"));
    }
}
