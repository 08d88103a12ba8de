package dev.slidegate.interceptor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.junit.jupiter.api.Test;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Limit;
import dev.slidegate.api.PlanResolver;
import dev.slidegate.api.Policy;
import dev.slidegate.api.RateLimitExceededException;
import dev.slidegate.api.StoreUnavailableException;
import dev.slidegate.api.Strategy;
import dev.slidegate.config.KeySource;
import dev.slidegate.core.DecisionStore;
import dev.slidegate.core.Overrides;
import dev.slidegate.memory.MemoryStore;
import dev.slidegate.metrics.DecisionStats;
import dev.slidegate.testing.ManualClock;

/**
 * The one pipeline, without HTTP: each way a call can end is an {@link Outcome} that carries the
 * decisions made and what a Java caller gets, and plans apply to a call whose key the code gives.
 */
class DeciderTest {

    private final ManualClock clock = new ManualClock();
    private final MemoryStore memory = new MemoryStore(clock, 100);
    private final Policy base = new Policy("d", List.of(Limit.parse("2/1h")), Strategy.SLIDING_LOG, "ip", false);
    private final Policy gold = new Policy("d.gold", List.of(Limit.parse("5/1h")), Strategy.SLIDING_LOG, "ip", false);
    private final MethodPolicy mp = new MethodPolicy(null, "DeciderTest", "d", base, new KeySource.Global(),
            Map.of("gold", gold), -1, MethodPolicy.Kind.STAGE, 1, null, Map.of());

    private Decider decider(DecisionStore store, PlanResolver plans) {
        return new Decider(null, store, plans, new Admission(new DecisionStats()), new Overrides(clock));
    }

    private static Outcome join(CompletionStage<Outcome> o) {
        return o.toCompletableFuture().join();
    }

    @Test
    void admittedThenRefusedCarryTheirDecisions() {
        Decider d = decider(memory, call -> null);
        Outcome first = join(d.decide(mp, "key:a", 1, null));
        assertInstanceOf(Outcome.Admitted.class, first);
        assertEquals(1, first.decisions().size());
        assertEquals(1, first.decisions().get(0).remaining());
        join(d.decide(mp, "key:a", 1, null));
        Outcome refused = join(d.decide(mp, "key:a", 1, null));
        Outcome.Refused r = assertInstanceOf(Outcome.Refused.class, refused);
        assertFalse(r.decision().allowed());
        assertInstanceOf(RateLimitExceededException.class, refused.failure());
        assertEquals(List.of(r.decision()), refused.decisions());
    }

    @Test
    void aPlanAppliesToACallWhoseKeyTheCodeGives() {
        Decider d = decider(memory, call -> "gold");
        for (int i = 0; i < 5; i++) {
            assertTrue(join(d.decide(mp, "key:g", 1, null)).admitted(), "call " + (i + 1) + " of the gold plan's 5");
        }
        Outcome.Refused r = assertInstanceOf(Outcome.Refused.class, join(d.decide(mp, "key:g", 1, null)));
        assertEquals("d.gold", r.decision().policy().name());
    }

    @Test
    void aStoreThatCannotDecideIsAnOutcomeNotAFailedStage() {
        DecisionStore broken = new DecisionStore() {
            @Override
            public String name() {
                return "broken";
            }

            @Override
            public CompletionStage<Decision> acquire(Policy policy, String key, int cost, long maxWaitMicros) {
                return CompletableFuture.failedFuture(new IllegalStateException("connection reset"));
            }
        };
        Outcome o = join(decider(broken, call -> null).decide(mp, "key:a", 1, null));
        assertInstanceOf(Outcome.StoreUnavailable.class, o);
        assertInstanceOf(StoreUnavailableException.class, o.failure());
        assertTrue(o.failure().getMessage().contains("connection reset"), o.failure().getMessage());
    }

    @Test
    void aResolverThatThrowsFailsTheCallAndChargesNothing() {
        Outcome o = join(decider(memory, call -> {
            throw new IllegalStateException("plan lookup broke");
        }).decide(mp, "key:a", 1, null));
        Outcome.Failed f = assertInstanceOf(Outcome.Failed.class, o);
        assertEquals("d", f.policy());
        assertEquals("plan lookup broke", f.failure().getMessage());
        assertEquals(2, memory.peek(base, "key:a").toCompletableFuture().join().remaining(), "nothing charged");
    }
}
