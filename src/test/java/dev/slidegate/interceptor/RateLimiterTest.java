package dev.slidegate.interceptor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import dev.slidegate.api.Decision;
import dev.slidegate.api.RateLimiter;
import dev.slidegate.http.SmallLimits;
import dev.slidegate.metrics.DecisionStats;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** The programmatic limiter: a configured policy by name, any caller key, the same decisions as annotations. */
@QuarkusTest
@TestProfile(SmallLimits.class)
class RateLimiterTest {

    @Inject
    RateLimiter limiter;
    @Inject
    DecisionStats stats;

    @Test
    void aConfiguredPolicyLimitsEachKeyOnItsOwn() {
        long refusedBefore = stats.refused("prog");
        assertEquals(2, limiter.acquireAndWait("prog", "tenant-a").remaining());
        Decision d = limiter.acquire("prog", "tenant-a", 2).toCompletableFuture().join();
        assertTrue(d.allowed());
        assertEquals(0, d.remaining());
        Decision refused = limiter.acquireAndWait("prog", "tenant-a");
        assertFalse(refused.allowed());
        assertTrue(refused.retryAfterSeconds() > 3500, "retry " + refused.retryAfterSeconds());
        assertEquals("prog", refused.policy().name());
        assertEquals(refusedBefore + 1, stats.refused("prog"), "counted like every decision");
        assertTrue(limiter.acquireAndWait("prog", "tenant-b").allowed(), "another key has its own window");
    }

    // a hostile or careless key cannot reach another caller's window or break the store's key rules
    @Test
    void anyKeyIsMadeSafe() {
        assertTrue(limiter.acquireAndWait("prog", "{x}*").allowed());
        assertTrue(limiter.acquireAndWait("prog", "x".repeat(10_000)).allowed());
        assertEquals(1, limiter.acquireAndWait("prog", "{x}*").remaining(), "the same odd key is the same caller");
    }

    @Test
    void mistakesAreSaidInASentence() {
        assertTrue(
                assertThrows(IllegalArgumentException.class, () -> limiter.acquireAndWait("no-such-policy", "k")).getMessage()
                        .contains("there is no policy 'no-such-policy'"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> limiter.acquireAndWait("prog", " ")).getMessage()
                .contains("caller key"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> limiter.acquire("prog", "k", 0)).getMessage()
                .contains("at least 1"));
    }
}
