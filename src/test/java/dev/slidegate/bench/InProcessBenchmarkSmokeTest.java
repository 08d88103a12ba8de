package dev.slidegate.bench;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * The in-process benchmark in a few seconds (no fork, one short iteration, one configuration per implementation): it keeps
 * running.
 */
class InProcessBenchmarkSmokeTest {

    @Test
    void runsEveryImplementation() throws Exception {
        Path chart = Path.of("target/bench/in-process-smoke.svg");
        String report = InProcessBenchmark.run(0, 0, 1, 0.2, new int[] { 1 },
                Map.of("perSecond", new String[] { "100" }, "keys",
                        new String[] { "1" }),
                chart);
        System.out.println(report);
        for (String impl : new String[] { "sliding-log", "fixed-window", "sliding-counter", "token-bucket" }) {
            assertTrue(report.lines().anyMatch(l -> l.contains(impl) && l.contains("| its own String key | 1 | 1 | ")),
                    impl + " missing from\n" + report);
        }
        for (String peer : new String[] { "Bucket4j", "Guava", "Resilience4j", "SmallRye FT rolling" }) {
            for (String view : new String[] { "String key in a map", "array index" }) {
                assertTrue(report.lines().anyMatch(l -> l.contains(peer) && l.contains("| " + view + " | 1 | 1 | ")),
                        peer + " (" + view + ") missing from\n" + report);
            }
        }
        // every strategy over the best peer, both ways, in the same run
        assertTrue(
                report.lines().anyMatch(
                        l -> l.matches("\\| token-bucket \\| 1 \\| 1 \\| [0-9.]+× \\(.+\\) / [0-9.]+× \\(.+\\) \\|.*")),
                report);
        assertTrue(Files.readString(chart).contains("Slidegate sliding-log"));
    }
}
