package dev.slidegate.admin;

import static dev.slidegate.admin.AdminApiTest.admin;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import jakarta.enterprise.inject.Alternative;
import jakarta.inject.Singleton;

import org.junit.jupiter.api.Test;

import dev.slidegate.api.Limit;
import dev.slidegate.api.LimitOverride;
import dev.slidegate.api.OverrideSource;
import dev.slidegate.testing.LogCapture;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * The SPI: a service's own {@link OverrideSource} bean replaces the shipped one. Its overrides apply
 * as soon as it says they changed; the admin API cannot write to a read-only source (409, nothing
 * changes); a source that fails keeps the overrides loaded before, with one warning.
 */
@QuarkusTest
@TestProfile(dev.slidegate.http.SharedProfiles.ProxyPlansAndOverrideSource.class)
class OverrideSourceSpiTest {

    /** Limits kept "elsewhere": a list the test sets, read-only for the admin API. */
    @Alternative
    @Singleton
    public static class TenantService implements OverrideSource {
        static volatile List<LimitOverride> overrides = List.of();
        static volatile boolean down;
        static volatile Runnable changed = () -> {
        };

        @Override
        public CompletionStage<List<LimitOverride>> load() {
            return down ? CompletableFuture.failedFuture(new IllegalStateException("tenant service unreachable"))
                    : CompletableFuture.completedFuture(overrides);
        }

        @Override
        public AutoCloseable watch(Runnable changed) {
            TenantService.changed = changed;
            return () -> {
            };
        }

        @Override
        public String name() {
            return "tenant-service";
        }
    }

    private static LimitOverride limit(String key, String limit) {
        return new LimitOverride(new LimitOverride.Target("reports", null, key), List.of(Limit.parse(limit)), false, false,
                null,
                "contract", "tenant-service", Instant.now());
    }

    @Test
    void aServicesOwnSourceDecidesAndIsReadOnlyForTheAdminApi() {
        given().header("X-Api-Key", "spi-a").get("/api/reports").then().statusCode(200);
        TenantService.overrides = List.of(limit("hdr:spi-a", "1/1h"));
        TenantService.changed.run();
        given().header("X-Api-Key", "spi-a").get("/api/reports").then().statusCode(429)
                .header("RateLimit-Policy", "\"reports-1h\";q=1;w=3600");
        admin().get("/admin/overrides").then().body("source", equalTo("tenant-service"))
                .body("overrides[0].setBy", equalTo("tenant-service"));

        admin().body("{\"block\": true}").put("/admin/policies/reports/override").then().statusCode(409)
                .contentType("application/problem+json").body("detail", containsString("read-only"));
        given().header("X-Api-Key", "spi-b").get("/api/reports").then().statusCode(200);

        try (LogCapture log = LogCapture.of("dev.slidegate")) {
            TenantService.down = true;
            TenantService.changed.run();
            TenantService.changed.run();
            given().header("X-Api-Key", "spi-a").get("/api/reports").then().statusCode(429);
            long warnings = log.lines().stream().filter(l -> l.contains("could not load the overrides from tenant-service"))
                    .count();
            assertEquals(1, warnings, log.lines().toString());
            TenantService.down = false;
            TenantService.overrides = List.of();
            TenantService.changed.run();
            assertTrue(log.lines().stream().anyMatch(l -> l.contains("loads the overrides from tenant-service again")),
                    log.lines().toString());
        }
        given().header("X-Api-Key", "spi-a").get("/api/reports").then().statusCode(200);
    }
}
