package dev.slidegate.entry;

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
        assertEquals(2, limiter.acquireBlocking("prog", "tenant-a").remaining());
        Decision d = limiter.acquire("prog", "tenant-a", 2).toCompletableFuture().join();
        assertTrue(d.allowed());
        assertEquals(0, d.remaining());
        Decision refused = limiter.acquireBlocking("prog", "tenant-a");
        assertFalse(refused.allowed());
        assertTrue(refused.retryAfterSeconds() > 3500, "retry " + refused.retryAfterSeconds());
        assertEquals("prog", refused.policy().name());
        assertEquals(refusedBefore + 1, stats.refused("prog"), "counted like every decision");
        assertTrue(limiter.acquireBlocking("prog", "tenant-b").allowed(), "another key has its own window");
    }

    // a hostile or careless key cannot reach another caller's window or break the store's key rules
    @Test
    void anyKeyIsMadeSafe() {
        assertTrue(limiter.acquireBlocking("prog", "{x}*").allowed());
        assertTrue(limiter.acquireBlocking("prog", "x".repeat(10_000)).allowed());
        assertEquals(1, limiter.acquireBlocking("prog", "{x}*").remaining(), "the same odd key is the same caller");
    }

    @Test
    void mistakesAreSaidInASentence() {
        assertTrue(
                assertThrows(IllegalArgumentException.class, () -> limiter.acquireBlocking("no-such-policy", "k")).getMessage()
                        .contains("there is no policy 'no-such-policy'"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> limiter.acquireBlocking("prog", " ")).getMessage()
                .contains("caller key"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> limiter.acquire("prog", "k", 0)).getMessage()
                .contains("at least 1"));
    }

    // a configured max-wait: the third call within 300 ms completes admitted when its permit comes, never before; a
    // call that may not wait is refused at once while others wait; one given a max-wait of its own waits that long
    @Test
    void aCallWaitsForItsPermitAsThePolicyOrTheCallSays() {
        String key = "tenant-wait-" + System.nanoTime();
        assertTrue(limiter.acquireBlocking("prog-wait", key).allowed());
        assertTrue(limiter.acquireBlocking("prog-wait", key).allowed());
        long before = System.nanoTime();
        java.util.concurrent.CompletableFuture<Decision> third = limiter.acquire("prog-wait", key).toCompletableFuture();
        Decision refusedNow = limiter.acquire("prog-wait", key, 1, java.time.Duration.ZERO).toCompletableFuture().join();
        assertFalse(refusedNow.allowed(), "no wait allowed, and a call waits ahead of it: " + refusedNow);
        Decision d = third.join();
        long waited = (System.nanoTime() - before) / 1000;
        assertTrue(d.allowed() && d.waits(), d.toString());
        assertTrue(waited >= d.waitMicros(), "completed " + waited + " us after the call, its permit " + d.waitMicros()
                + " us after the decision");
        Decision blocking = limiter.acquireBlocking("prog-wait", key, 1, java.time.Duration.ofSeconds(2));
        assertTrue(blocking.allowed(), blocking.toString());
    }

    // a call whose permit is further away than its max-wait is refused at once; a max-wait out of range is a sentence
    @Test
    void aPermitTooFarAwayIsRefusedAtOnceAndBadWaitsAreSaid() {
        String key = "tenant-far-" + System.nanoTime();
        for (int i = 0; i < 3; i++) {
            assertTrue(limiter.acquireBlocking("prog", key).allowed());
        }
        Decision far = limiter.acquireBlocking("prog", key, 1, java.time.Duration.ofSeconds(5));
        assertFalse(far.allowed(), "the next permit is an hour away: " + far);
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> limiter.acquire("prog", key, 1, java.time.Duration.ofSeconds(-1))).getMessage().contains("between 0"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> limiter.acquire("prog", key, 1, java.time.Duration.ofDays(2))).getMessage().contains("one day"));
    }
}
