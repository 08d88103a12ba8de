package dev.slidegate.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * Calls in flight are a primitive of their own (issue 57), not a strategy: a policy made by {@link Policy#inFlight} has
 * no strategy, counts concurrent requests, never settles, and keeps what it is through a plan's or an override's
 * copies; a policy without a strategy that does not say it limits calls in flight is refused with a sentence.
 */
class InFlightPolicyTest {

    @Test
    void aPolicyOfCallsInFlightIsNoStrategyAndStaysOneThroughItsCopies() {
        Policy p = Policy.inFlight("exports", 2, 30_000_000L, "ip");
        assertTrue(p.inFlight());
        assertNull(p.strategy());
        assertEquals("max-in-flight", p.counting());
        assertEquals(Policy.CONCURRENT_REQUESTS, p.unit());
        assertEquals(FailMode.CLOSED, p.failMode(), "no instance keeps M alone");
        assertEquals(2, p.maxInFlight());
        assertEquals(30_000_000L, p.leaseMicros());
        assertFalse(p.settles());
        assertEquals("exports", p.quotaName(0));
        Policy plan = p.withName("exports.pro").withLimits(List.of(new Limit(5, 30_000_000L))).withMaxWait(1_000_000);
        assertTrue(plan.inFlight(), "a plan of it is one too");
        assertEquals(5, plan.maxInFlight());
        for (Strategy s : Strategy.values()) {
            assertFalse(new Policy("r", List.of(new Limit(1, 1_000_000)), s, "ip", false).inFlight(), s.configName());
        }
    }

    @Test
    void aPolicyWithoutAStrategyOrWithTwoLeaseLimitsIsRefusedWithASentence() {
        IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
                () -> new Policy("p", List.of(new Limit(1, 1_000_000)), null, "ip", false));
        assertEquals("policy 'p' has no strategy (a policy of calls in flight is made by Policy.inFlight)", none.getMessage());
        IllegalArgumentException two = assertThrows(IllegalArgumentException.class,
                () -> new Policy("p", List.of(new Limit(1, 1_000_000), new Limit(2, 2_000_000)), null, "ip", false, false,
                        Policy.DEFAULT_CELLS, FailMode.CLOSED, 0, Policy.CONCURRENT_REQUESTS));
        assertTrue(two.getMessage().contains("exactly one limit"), two.getMessage());
        IllegalArgumentException rateInSlots = assertThrows(IllegalArgumentException.class,
                () -> new Policy("p", List.of(new Limit(1, 1_000_000)), Strategy.SLIDING_LOG, "ip", false, false,
                        Policy.DEFAULT_CELLS, FailMode.CLOSED, 0, Policy.CONCURRENT_REQUESTS));
        assertTrue(rateInSlots.getMessage().contains("is the unit of max-in-flight"), rateInSlots.getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Strategy.parse("concurrency")).getMessage()
                .contains("calls in flight are limited by max-in-flight, not a strategy"));
    }
}
