package dev.slidegate.bench;

import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import dev.slidegate.config.PolicyRegistry;
import dev.slidegate.core.LimiterStore;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** The admin benchmark, small (1 000 keys, 3 calls): it keeps running, and its pages and counts are right. */
@QuarkusTest
@TestProfile(AdminBenchmark.OnRedis.class)
class AdminBenchmarkSmokeTest {

    @Inject
    LimiterStore store;
    @Inject
    PolicyRegistry registry;

    @Test
    void measure() {
        String report = AdminBenchmark.run(store, registry, 1000, 3);
        System.out.println(report);
        assertTrue(report.contains("| first page of 100 keys |") && report.contains("1000 active keys"), report);
    }
}
