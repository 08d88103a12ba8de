package dev.slidegate.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;

/**
 * The wrk benchmark against the packaged jar for a second per configuration: it keeps running, the refusing runs refuse, and
 * the CPU is counted.
 */
class HttpBenchmarkSmokeIT {

    static final int SECONDS = 1;
    static final int CONNECTIONS = 8;

    @Test
    void runsEveryConfiguration() throws Exception {
        dev.slidegate.testing.Tools.require("wrk", "HttpBenchmarkSmokeIT", "apt-get install wrk");
        String report = dev.slidegate.bench.HttpBenchmarkAccess.run(SECONDS, CONNECTIONS,
                Path.of("target/bench/http-smoke.svg"));
        System.out.println(report);
        assertTrue(report.contains("| limiter off (`slidegate.enabled=false`) |"), report);
        assertTrue(report.contains("| Redis store, ~90% refused (429) |"), report);
        assertTrue(report.lines().filter(l -> l.startsWith("| ") && l.contains("nothing refused"))
                .allMatch(l -> l.contains("| 0 of ")),
                "nothing refused where the limit is 10^7/s:\n" + report);
        assertTrue(report.lines().filter(l -> l.contains("90% refused")).noneMatch(l -> l.contains("| 0 of ")),
                "the refusing runs refuse:\n" + report);
        // a flooding caller over its limit: refused, and answered without asking Redis again
        assertTrue(
                report.lines().filter(l -> l.contains("flooding") && l.startsWith("| ")).noneMatch(l -> l.contains("| 0 of ")),
                "the flooding caller is refused:\n" + report);
        // The flood's script calls must not grow with its refusals: at most the policy's 5 admissions, one call per
        // connection in flight before the first refusal is remembered, and the instance count's renewals (one a second,
        // two for the run's edges). A count per refused request would fail on a slow machine, where a one-second run
        // makes few requests and this fixed part dominates (CI once saw 9 calls for 122 refusals).
        java.util.regex.Matcher calls = java.util.regex.Pattern.compile("([\\d,]+) for ([\\d,]+) refused requests, ")
                .matcher(report);
        assertTrue(calls.find(), "the flood's Redis calls are reported:\n" + report);
        long scriptCalls = Long.parseLong(calls.group(1).replace(",", "")); // the report groups thousands: 1,128
        long refused = Long.parseLong(calls.group(2).replace(",", ""));
        long bound = 5 + CONNECTIONS + SECONDS + 2;
        assertTrue(refused > 2 * bound, "too few refusals (" + refused + ") to tell a remembered refusal from a Redis call:\n"
                + report);
        assertTrue(scriptCalls <= bound,
                scriptCalls + " Redis calls for " + refused + " refusals of the flood, more than " + bound + ":\n" + report);
        // every row has its CPU per request: the service's always, Redis's on the Redis rows, wrk's always
        for (String row : report.lines().filter(l -> l.startsWith("| ") && l.contains(" of ")).toList()) {
            String[] cells = row.split("\\|");
            assertTrue(Double.parseDouble(cells[7].trim()) > 0, "service CPU per request in " + row);
            // only where every request is a script call: refusals are mostly answered from the instance's
            // memory, a hot key's admissions from permits taken ahead, and the few calls of such a row in a smoke run
            // can stay under one 10 ms CPU tick
            assertTrue(!row.contains("take-ahead off") || Double.parseDouble(cells[8].trim()) > 0,
                    "Redis CPU per request in " + row);
            assertTrue(Double.parseDouble(cells[10].trim()) > 0, "wrk CPU per request in " + row);
        }
    }
}
