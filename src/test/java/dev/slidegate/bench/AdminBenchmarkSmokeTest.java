package dev.slidegate.bench;

import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import dev.slidegate.config.PolicyCatalog;
import dev.slidegate.config.StoreStack;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * The admin benchmark, small (1 000 keys, 3 calls; the isolation run 3 000 keys and 1.5 s a side): it keeps running, and its
 * pages and counts are right.
 */
@QuarkusTest
@TestProfile(dev.slidegate.http.SharedProfiles.OnRedis.class)
class AdminBenchmarkSmokeTest {

    @Inject
    StoreStack stack;
    @Inject
    PolicyCatalog registry;

    @Test
    void measure() throws Exception {
        String report = AdminBenchmark.run(stack, registry, 1000, 3);
        System.out.println(report);
        assertTrue(report.contains("| first page of 100 keys |") && report.contains("1000 active keys"), report);
        String isolation = AdminBenchmark.isolation(stack, registry, 3_000, 50, 1.5);
        System.out.println(isolation);
        // the live pages keep streaming under the load (they died at their first snapshot when each page
        // computed its own on the decisions' connections), and no API request fails meanwhile
        java.util.regex.Matcher busy = java.util.regex.Pattern
                .compile(
                        "\\| with the admin load \\| \\d+ \\| (\\d+) \\|.*\\| (\\d+) stream events.*, (\\d+) listings by usage \\((\\d+) failed\\)")
                .matcher(isolation);
        assertTrue(busy.find(), isolation);
        assertTrue(busy.group(1).equals("0"), "no API request failed (no 503, no 500, every one answered):\n" + isolation);
        assertTrue(Long.parseLong(busy.group(3)) > 0, "the operators' listings ran:\n" + isolation);
        assertTrue(busy.group(4).equals("0"), "no listing failed:\n" + isolation);
        assertTrue(Long.parseLong(busy.group(2)) > 0, "the live pages kept streaming:\n" + isolation);
    }
}
