package dev.slidegate.bench;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * The accuracy report, small (N = 20, 100 ms windows: ten rows of a paced and a hammered run take some 7 s), so the command
 * keeps compiling and running, and the exact strategies stay within N on windows this short too.
 */
class AccuracyReportSmokeTest {

    @Test
    void theReportMeasuresEveryLimiterAndTheExactOnesStayWithinN() throws Exception {
        String table = AccuracyReport.run(20, 100_000, 2, 150, List.of(20), 100_000);
        System.out.println(table);
        for (String row : List.of("Slidegate sliding-log | memory", "Slidegate sliding-log | redis",
                "Slidegate sliding-counter | memory",
                "Slidegate sliding-counter | redis", "Slidegate fixed-window", "Slidegate token-bucket", "Bucket4j",
                "Guava RateLimiter")) {
            assertTrue(table.contains("| " + row), "no row " + row + " in\n" + table);
        }
        // the exact strategies: paced and hammered, max provable within N
        Matcher m = Pattern
                .compile("\\| Slidegate (sliding-log|sliding-counter) \\| [^|]+\\| (\\d+) [^|]+\\|[^|]+\\|[^|]+\\| (\\d+) ")
                .matcher(table);
        int exactRows = 0;
        while (m.find()) {
            assertTrue(Integer.parseInt(m.group(2)) <= 20 && Integer.parseInt(m.group(3)) <= 20, m.group());
            exactRows++;
        }
        assertTrue(exactRows == 4, table);
        assertTrue(table.contains("| sliding-counter | ") && table.contains(" B |"), table);
        assertTrue(table.contains("| `1000000/month` in Europe/Berlin (fixed-window, calendar) | "), table);
    }
}
