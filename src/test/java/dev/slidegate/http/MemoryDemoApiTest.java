package dev.slidegate.http;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.slidegate.config.PolicyCatalog;
import dev.slidegate.config.StoreStack;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** The demo API on the in-process store. */
@QuarkusTest
@TestProfile(SmallLimits.class)
class MemoryDemoApiTest extends DemoApiContract {

    @Inject
    StoreStack stack;
    @Inject
    PolicyCatalog registry;

    @BeforeEach
    void resetWindows() {
        registry.policies().values().forEach(r -> {
            stack.inspection().reset(r.policy(), "ip:127.0.0.1").toCompletableFuture().join();
            stack.inspection().reset(r.policy(), "ip:0:0:0:0:0:0:0:1").toCompletableFuture().join();
            for (String user : new String[] { "alice", "bob" }) { // the login's per-user windows (login-user)
                stack.inspection().reset(r.policy(), dev.slidegate.engine.CallerKeys.custom(user)).toCompletableFuture()
                        .join();
            }
        });
    }

    @Test
    void theStoreIsTheInProcessOne() {
        Assertions.assertEquals("memory", stack.decisions().name());
    }
}
