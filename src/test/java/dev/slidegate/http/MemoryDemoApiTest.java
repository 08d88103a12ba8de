package dev.slidegate.http;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.slidegate.config.PolicyRegistry;
import dev.slidegate.core.LimiterStore;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** The demo API on the in-process store. */
@QuarkusTest
@TestProfile(SmallLimits.class)
class MemoryDemoApiTest extends DemoApiContract {

    @Inject
    LimiterStore store;
    @Inject
    PolicyRegistry registry;

    @BeforeEach
    void resetWindows() {
        registry.policies().values().forEach(r -> {
            store.reset(r.policy(), "ip:127.0.0.1").toCompletableFuture().join();
            store.reset(r.policy(), "ip:0:0:0:0:0:0:0:1").toCompletableFuture().join();
        });
    }

    @Test
    void theStoreIsTheInProcessOne() {
        Assertions.assertEquals("memory", store.name());
    }
}
