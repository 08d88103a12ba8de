package dev.slidegate.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;

/**
 * The wrk benchmark against the packaged jar for a second per configuration: it keeps running, the refusing runs refuse, and
 * the CPU is counted.
 */
class HttpBenchmarkSmokeIT {

    @Test
    void runsEveryConfiguration() throws Exception {
        dev.slidegate.testing.Tools.require("wrk", "HttpBenchmarkSmokeIT", "apt-get install wrk");
        String report = dev.slidegate.bench.HttpBenchmarkAccess.run(1, 8, Path.of("target/bench/http-smoke.svg"));
        System.out.println(report);
        assertTrue(report.contains("| limiter off (`slidegate.enabled=false`) |"), report);
        assertTrue(report.contains("| Redis store, ~90% refused (429) |"), report);
        assertTrue(report.lines().filter(l -> l.contains("nothing refused")).allMatch(l -> l.contains("| 0 of ")),
                "nothing refused where the limit is 10^7/s:\n" + report);
        assertTrue(report.lines().filter(l -> l.contains("90% refused")).noneMatch(l -> l.contains("| 0 of ")),
                "the refusing runs refuse:\n" + report);
        // a flooding caller over its limit: refused, and answered without asking Redis again
        assertTrue(
                report.lines().filter(l -> l.contains("flooding") && l.startsWith("| ")).noneMatch(l -> l.contains("| 0 of ")),
                "the flooding caller is refused:\n" + report);
        java.util.regex.Matcher calls = java.util.regex.Pattern.compile("([0-9.]+) per refused request\n").matcher(report);
        assertTrue(calls.find() && Double.parseDouble(calls.group(1)) < 0.05,
                "Redis calls per refused request of the flood:\n" + report);
        // every row has its CPU per request: the service's always, Redis's on the Redis rows, wrk's always
        for (String row : report.lines().filter(l -> l.startsWith("| ") && l.contains(" of ")).toList()) {
            String[] cells = row.split("\\|");
            assertTrue(Double.parseDouble(cells[7].trim()) > 0, "service CPU per request in " + row);
            // only where every request is a script call: refusals are mostly answered from the instance's
            // memory, and the few calls of a smoke run's refusing rows can stay under one 10 ms CPU tick
            assertTrue(!row.contains("Redis store") || !row.contains("nothing refused")
                    || Double.parseDouble(cells[8].trim()) > 0, "Redis CPU per request in " + row);
            assertTrue(Double.parseDouble(cells[10].trim()) > 0, "wrk CPU per request in " + row);
        }
    }
}
