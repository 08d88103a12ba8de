package dev.slidegate.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;

import org.junit.jupiter.api.Test;

import dev.slidegate.api.Decision;
import dev.slidegate.api.FailMode;
import dev.slidegate.api.Limit;
import dev.slidegate.api.Policy;
import dev.slidegate.api.Strategy;
import dev.slidegate.memory.MemoryStore;
import dev.slidegate.testing.ManualClock;

/**
 * A permit of a policy that may wait occupies its window for the late tolerance too (issue 56): what the store below
 * sees, and what callers are told.
 */
class LateOccupancyTest {

    private static final long TOLERANCE = 50_000;
    private final ManualClock clock = new ManualClock();
    private final List<Policy> seen = new ArrayList<>();
    private final DecisionStore recording = new ForwardingStore(new MemoryStore(clock, 100)) {
        @Override
        public CompletionStage<Decision> acquire(Policy policy, String key, int cost, long maxWaitMicros) {
            seen.add(policy);
            return super.acquire(policy, key, cost, maxWaitMicros);
        }

        @Override
        public CompletionStage<Long> settle(Policy policy, String key, long admittedAtMicros, int estimate, long actual) {
            seen.add(policy);
            return super.settle(policy, key, admittedAtMicros, estimate, actual);
        }
    };
    private final LateOccupancy late = new LateOccupancy(recording, TOLERANCE);

    private static Policy policy(String name, Strategy strategy, String limit, long maxWait) {
        return new Policy(name, List.of(Limit.parse(limit)), strategy, "global", false, false, Policy.DEFAULT_CELLS,
                FailMode.LOCAL, maxWait);
    }

    private Decision acquire(Policy p) {
        return late.acquire(p, "k", 1).toCompletableFuture().join();
    }

    // the store counts 2 per 1.05 s, the caller is told 2/1s with the wider window's retry
    @Test
    void aWaitingPolicysPermitsOccupyTheirWindowForTheTolerance() {
        Policy p = policy("w", Strategy.SLIDING_LOG, "2/1s", 1_000_000);
        assertTrue(acquire(p).allowed());
        assertTrue(acquire(p).allowed());
        Decision refused = acquire(p);
        assertFalse(refused.allowed());
        assertTrue(refused.retryAfterMicros() >= 1_050_000 && refused.retryAfterMicros() <= 1_050_001,
                "the next permit is a window and the tolerance away: " + refused);
        assertSame(p, refused.policy(), "named as configured");
        assertEquals(Limit.parse("2/1s"), refused.states().get(0).limit());
        assertEquals(1_050_000, seen.get(0).limits().get(0).windowMicros(), "the store counts the wider window");
        assertSame(seen.get(0), seen.get(2), "the same wider policy each time: the store finds its state by identity");
        clock.advanceMicros(1_000_000);
        assertFalse(acquire(p).allowed(), "a plain window later: still within the wider one");
        clock.advanceMicros(50_001);
        assertTrue(acquire(p).allowed());
        Policy tokens = policy("t", Strategy.SLIDING_COUNTER, "100/1s", 1_000_000);
        Decision admitted = acquire(tokens);
        Policy decided = seen.get(seen.size() - 1);
        late.settle(tokens, "k", admitted.atMicros(), 1, 30).toCompletableFuture().join();
        assertSame(decided, seen.get(seen.size() - 1), "settled in the windows it was decided in");
    }

    // widened: sliding log, sliding counter, token bucket with a max-wait; never a policy without one, a fixed window, a
    // calendar period, calls in flight, or a policy paced toward an upstream (its windows carry the upstream margin)
    @Test
    void onlyWaitingPoliciesOfStrategiesThatBoundAnyIntervalAreWidened() {
        for (Strategy s : List.of(Strategy.SLIDING_LOG, Strategy.SLIDING_COUNTER, Strategy.TOKEN_BUCKET)) {
            assertEquals(1_050_000, LateOccupancy.occupying(policy("a", s, "5/1s", 1), TOLERANCE).limits().get(0)
                    .windowMicros(), s.toString());
            Policy never = policy("b", s, "5/1s", 0);
            assertSame(never, LateOccupancy.occupying(never, TOLERANCE), s + " without max-wait");
        }
        Policy fixed = policy("c", Strategy.FIXED_WINDOW, "5/1s", 1_000_000);
        assertSame(fixed, LateOccupancy.occupying(fixed, TOLERANCE));
        Policy daily = policy("d", Strategy.FIXED_WINDOW, "5/day", 1_000_000);
        assertSame(daily, LateOccupancy.occupying(daily, TOLERANCE));
        Policy slots = Policy.inFlight("e", 2, 10_000_000L, "global", false, FailMode.LOCAL, 1_000_000);
        assertSame(slots, LateOccupancy.occupying(slots, TOLERANCE));
        Policy outgoing = policy("quotes", Strategy.SLIDING_LOG, "10/10s", 1_000_000);
        late.margined("quotes");
        assertTrue(acquire(outgoing).allowed());
        assertSame(outgoing, seen.get(0), "an outgoing policy is decided as paced");
    }

    // a decision a decorator below remembers from an earlier asking (refusals answered from memory) names an equal wider
    // policy, not the same object: it is named as configured all the same
    @Test
    void aRememberedDecisionIsNamedAsConfiguredToo() {
        Policy p = policy("w", Strategy.SLIDING_LOG, "1/1s", 1_000_000);
        Policy asked = LateOccupancy.occupying(p, TOLERANCE);
        Decision remembered = new Decision(LateOccupancy.occupying(p, TOLERANCE), false, 0, 900_000, clock.nowMicros(),
                dev.slidegate.api.LimitState.untouched(asked.limits()));
        Decision told = late.configured(remembered, p, asked);
        assertSame(p, told.policy());
        assertEquals(Limit.parse("1/1s"), told.states().get(0).limit());
        // the fail mode's share (N/k of the wider windows) is narrowed back to the configured window, its N/k kept
        Policy share = asked.withLimits(List.of(new Limit(1, 1_050_000)));
        Decision local = new Decision(share.withLimits(List.of(new Limit(1, 1_050_000))), true, -1, 0, clock.nowMicros(),
                dev.slidegate.api.LimitState.untouched(share.limits()), true);
        assertEquals(new Limit(1, 1_000_000), late.configured(local, p, asked).policy().limits().get(0));
    }
}
