package dev.slidegate.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
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
// a regression fails in seconds: a store that admits without bound, or a join that never completes, ends at the timeout
@org.junit.jupiter.api.Timeout(value = 60, unit = java.util.concurrent.TimeUnit.SECONDS, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
class DeciderTest {

    private final ManualClock clock = new ManualClock();
    private final MemoryStore memory = new MemoryStore(clock, 100);
    private final Policy base = new Policy("d", List.of(Limit.parse("2/1h")), Strategy.SLIDING_LOG, "ip", false);
    private final Policy gold = new Policy("d.gold", List.of(Limit.parse("5/1h")), Strategy.SLIDING_LOG, "ip", false);
    private final MethodPolicy mp = new MethodPolicy(
            null, "DeciderTest", new dev.slidegate.config.PolicyRegistry.Resolved("d", base, new KeySource.Global(),
                    Map.of("gold", gold), 1, false, dev.slidegate.core.Settlement.OFF),
            -1, MethodPolicy.Kind.STAGE, null, Map.of(), null, -1, null);

    private Decider decider(DecisionStore store, PlanResolver plans) {
        return new Decider(null, store, plans, new Admission(new DecisionStats()), new Overrides(clock),
                new Waits(10, 10, 50_000_000L, System::nanoTime, (delay, task) -> {
                    throw new AssertionError("no call waits here");
                }), new dev.slidegate.metrics.WaitStats((io.micrometer.core.instrument.MeterRegistry) null), upstreams(store),
                new Leases(store, new dev.slidegate.metrics.InFlightStats((io.micrometer.core.instrument.MeterRegistry) null),
                        System::nanoTime, (delay, task) -> {
                        }));
    }

    /** What upstreams teach outgoing policies: nothing here, with the shipped settings. */
    static Upstreams upstreams(DecisionStore store) {
        return upstreams(store, dev.slidegate.core.Clock.system());
    }

    /** {@link #upstreams(DecisionStore)} on {@code clock}. */
    static Upstreams upstreams(DecisionStore store, dev.slidegate.core.Clock clock) {
        return new Upstreams(store, store instanceof dev.slidegate.core.StoreInspection i ? i : null,
                new dev.slidegate.metrics.UpstreamStats((io.micrometer.core.instrument.MeterRegistry) null),
                dev.slidegate.core.UpstreamHeaders.Form.all(), 50_000, 1_000_000, 300_000_000, 10_000, true, 1_000_000_000L,
                clock);
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

    // an outgoing call of a key this instance has not read lately waits for one read of what the fleet learned of its
    // upstream, and is decided under it: 1 per hour learned (by another instance) under 2 per hour configured
    @Test
    void anOutgoingCallIsDecidedUnderWhatTheFleetLearnedOfItsUpstream() {
        Policy out = new Policy("out", List.of(Limit.parse("2/1h")), Strategy.SLIDING_LOG, "client", false);
        MethodPolicy outgoing = new MethodPolicy(
                null, "DeciderTest", new dev.slidegate.config.PolicyRegistry.Resolved("out", out, new KeySource.Client(),
                        Map.of(), 1, true, dev.slidegate.core.Settlement.OFF),
                -1, MethodPolicy.Kind.STAGE, null, Map.of(), "partner", -1, null);
        memory.learn(out, "client:partner", List.of(Limit.parse("1/1h")), 3_600_000_000L).toCompletableFuture().join();
        CompletableFuture<Void> gate = new CompletableFuture<>();
        DecisionStore gated = new dev.slidegate.testing.ForwardingStore(memory) {
            @Override
            public CompletionStage<List<Limit>> learned(Policy policy, String key) {
                return gate.thenCompose(x -> memory.learned(policy, key));
            }
        };
        Decider d = decider(gated, call -> null);
        CompletableFuture<Outcome> first = d.decide(outgoing, "client:partner", 1, null).toCompletableFuture();
        assertFalse(first.isDone(), "decided before the store said what was learned");
        gate.complete(null);
        assertTrue(join(first).admitted());
        Outcome second = join(d.decide(outgoing, "client:partner", 1, null));
        Outcome.Refused r = assertInstanceOf(Outcome.Refused.class, second, "paced at the learned 1 per hour");
        assertEquals(1, r.decision().trippedLimit().orElseThrow().permits());
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

            @Override
            public CompletionStage<Decision> enter(Policy policy, String key, long maxWaitMicros) {
                return CompletableFuture.failedFuture(new IllegalStateException("connection reset"));
            }

            @Override
            public CompletionStage<Long> hold(Policy policy, String key, long forMicros) {
                return CompletableFuture.failedFuture(new IllegalStateException("connection reset"));
            }

            @Override
            public CompletionStage<Long> block(Policy policy, String key, long forMicros) {
                return CompletableFuture.failedFuture(new IllegalStateException("connection reset"));
            }

            @Override
            public CompletionStage<Long> settle(Policy policy, String key, long admittedAtMicros, int estimate, long actual) {
                return CompletableFuture.failedFuture(new IllegalStateException("connection reset"));
            }

            @Override
            public CompletionStage<Long> heldFor(Policy policy, String key) {
                return CompletableFuture.failedFuture(new IllegalStateException("connection reset"));
            }

            @Override
            public CompletionStage<Void> learn(Policy policy, String key, java.util.List<dev.slidegate.api.Limit> limits,
                    long forMicros) {
                return CompletableFuture.failedFuture(new IllegalStateException("connection reset"));
            }

            @Override
            public CompletionStage<java.util.List<dev.slidegate.api.Limit>> learned(Policy policy, String key) {
                return CompletableFuture.failedFuture(new IllegalStateException("connection reset"));
            }

            @Override
            public CompletionStage<java.util.List<Long>> renew(Policy policy, String key, java.util.List<Long> leases) {
                return CompletableFuture.failedFuture(new IllegalStateException("connection reset"));
            }

            @Override
            public CompletionStage<Turn> queue(Policy policy, String key, java.util.List<Long> tickets, long lapseMicros) {
                throw new IllegalStateException("store down");
            }

            @Override
            public CompletionStage<Void> unqueue(Policy policy, String key, java.util.List<Long> tickets) {
                throw new IllegalStateException("store down");
            }

            @Override
            public CompletionStage<java.util.List<Long>> leave(Policy policy, String key, java.util.List<Long> leases) {
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

    /**
     * Timers on the test's one clock (issue 57): they fire when the test moves the clock, and waits, leases and the store
     * read the same clock, so moving it moves them all.
     */
    /** Moves the clock and its timers 10 ms at a time until {@code call} is decided, at most {@code steps} times. */
    private void untilDecided(ManualTimers timers, CompletableFuture<?> call, int steps) {
        for (int i = 0; i < steps && !call.isDone(); i++) {
            timers.advance(clock, 10_000);
        }
    }

    /** An answer of the upstream of {@code calls} that says its quota: 1 request a window. */
    private static void quotaOfOne(Upstreams upstreams, Policy calls) {
        upstreams.learn(calls, "client:provider", 200, name -> name.equals("x-ratelimit-limit-requests") ? List.of("1")
                : null).toCompletableFuture().join();
    }

    static final class ManualTimers implements Waits.Timer {
        final ManualClock clock;
        final java.util.List<long[]> due = new java.util.ArrayList<>();
        final java.util.List<Runnable> tasks = new java.util.ArrayList<>();

        ManualTimers(ManualClock clock) {
            this.clock = clock;
        }

        /** The clock's monotonic reading. */
        long nanos() {
            return clock.nanoTime();
        }

        @Override
        public void schedule(long delayNanos, Runnable task) {
            due.add(new long[] { nanos() + delayNanos });
            tasks.add(task);
        }

        /** Moves the clock by {@code micros}, then runs every timer due by then. */
        void advance(ManualClock store, long micros) {
            if (store != clock) {
                throw new IllegalArgumentException("one clock: the timers' own");
            }
            clock.advanceMicros(micros);
            for (int i = 0; i < tasks.size(); i++) {
                if (due.get(i)[0] <= nanos()) {
                    Runnable r = tasks.remove(i);
                    due.remove(i--);
                    r.run();
                }
            }
        }
    }

    private final Policy waiting = new Policy("w", List.of(Limit.parse("1/1s")), Strategy.SLIDING_LOG, "global", false, false,
            Policy.DEFAULT_CELLS, dev.slidegate.api.FailMode.LOCAL, 2_000_000);
    private final MethodPolicy waitingMp = new MethodPolicy(
            null, "DeciderTest#wait", new dev.slidegate.config.PolicyRegistry.Resolved("w", waiting, new KeySource.Global(),
                    Map.of(), 1, false, dev.slidegate.core.Settlement.OFF),
            -1, MethodPolicy.Kind.STAGE, null, Map.of(), null, -1, null);

    /** The waiting policy with a max-wait of 3 s: a call decided again a window later still has time to wait. */
    private final MethodPolicy patientMp = new MethodPolicy(null, "DeciderTest#patient",
            new dev.slidegate.config.PolicyRegistry.Resolved("w", waiting.withMaxWait(3_000_000), new KeySource.Global(),
                    Map.of(), 1, false, dev.slidegate.core.Settlement.OFF),
            -1, MethodPolicy.Kind.STAGE, null, Map.of(), null, -1, null);

    private final io.micrometer.core.instrument.simple.SimpleMeterRegistry meters = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
    private final dev.slidegate.metrics.WaitStats waitStats = new dev.slidegate.metrics.WaitStats(meters);

    /** Calls of {@code policy} counted {@code late} ({@code slidegate_wait_outcomes_total}). */
    private double late(String policy) {
        return meters.counter("slidegate.wait.outcomes", "policy", policy, "outcome", "late").count();
    }

    private Decider waitingDecider(ManualTimers timers, int perKey) {
        return waitingDecider(timers, perKey, memory);
    }

    private Decider waitingDecider(ManualTimers timers, int perKey, DecisionStore store) {
        return waitingDecider(timers, perKey, store, dev.slidegate.core.PermitInstants.unknown());
    }

    /** A waiting decider that places the store's clock on its own by {@code instants}. */
    private Decider waitingDecider(ManualTimers timers, int perKey, DecisionStore store,
            dev.slidegate.core.PermitInstants instants) {
        return new Decider(
                new CallerKeys(),
                store, call -> null, new Admission(new DecisionStats()), new Overrides(clock),
                new Waits(100, perKey, 50_000_000L, clock::nanoTime, timers), waitStats, upstreams(store),
                new Leases(store, new dev.slidegate.metrics.InFlightStats((io.micrometer.core.instrument.MeterRegistry) null),
                        clock::nanoTime, timers),
                Threads.INLINE, instants);
    }

    // a held call proceeds when its permit's instant comes, not before: its outcome completes only then
    @Test
    void aHeldCallProceedsWhenItsPermitComes() {
        ManualTimers timers = new ManualTimers(clock);
        Decider d = waitingDecider(timers, 10);
        assertTrue(join(d.decide(waitingMp, "global", 1, null)).admitted());
        CompletableFuture<Outcome> held = d.decide(waitingMp, "global", 1, null).toCompletableFuture();
        assertFalse(held.isDone(), "held until its permit's instant, 1 s away");
        assertEquals(1, waitStats.waiting("w", "global"), "the admin sees it wait");
        timers.advance(clock, 999_000);
        assertFalse(held.isDone(), "not a millisecond early");
        timers.advance(clock, 2_000);
        Outcome o = held.join();
        assertTrue(o.admitted(), o.toString());
        assertTrue(o.decisions().get(0).waitMicros() > 999_000, o.toString());
        assertEquals(0, waitStats.waiting("w"));
        assertEquals(1, waitStats.waited("w"));
    }

    // an outgoing call of two policies (a provider's requests and tokens) is charged by both at the instant it goes
    // out: when the quota of requests has room only in a second, the tokens are charged then too, not now (charged now,
    // their window would end a second before the provider's, and the next calls would pass its quota of tokens)
    @Test
    void anOutgoingCallOfTwoPoliciesIsChargedByBothWhenItGoesOut() {
        ManualTimers timers = new ManualTimers(clock);
        Policy calls = new Policy("calls", List.of(Limit.parse("1/1s")), Strategy.SLIDING_LOG, "client", false)
                .withMaxWait(3_000_000);
        Policy tokens = new Policy("tokens", List.of(Limit.parse("1000/1s")), Strategy.SLIDING_LOG, "client", false)
                .withMaxWait(3_000_000).withUnit("tokens");
        MethodPolicy callsMp = new MethodPolicy(null, "DeciderTest#provider",
                new dev.slidegate.config.PolicyRegistry.Resolved("calls", calls, new KeySource.Client(), Map.of(), 1, true,
                        dev.slidegate.core.Settlement.OFF),
                -1, MethodPolicy.Kind.STAGE, null, Map.of(), "provider", -1, null);
        MethodPolicy tokensMp = new MethodPolicy(null, "DeciderTest#provider",
                new dev.slidegate.config.PolicyRegistry.Resolved("tokens", tokens, new KeySource.Client(), Map.of(), 60, true,
                        dev.slidegate.core.Settlement.OFF),
                -1, MethodPolicy.Kind.STAGE, null, Map.of(), "provider", -1, null);
        Decider d = waitingDecider(timers, 10);
        Outcome first = join(d.decide(List.of(callsMp, tokensMp), new Object[0], null));
        assertTrue(first.admitted(), first.toString());
        CompletableFuture<Outcome> held = d.decide(List.of(callsMp, tokensMp), new Object[0], null).toCompletableFuture();
        assertFalse(held.isDone(), "held for the quota of requests");
        timers.advance(clock, 1_100_000);
        Outcome o = held.join();
        assertTrue(o.admitted(), o.toString());
        assertEquals(2, o.decisions().size(), o.toString());
        long callsWait = o.decisions().get(0).waitMicros();
        assertTrue(callsWait >= 1_000_000, o.toString());
        assertEquals(callsWait, o.decisions().get(1).waitMicros(), "the tokens charged when the call goes out: " + o);
    }

    /** {@code calls} as the policy of a REST client's method, paced to its upstream "provider". */
    private static MethodPolicy outgoing(Policy calls) {
        return outgoing(calls, dev.slidegate.core.Settlement.OFF);
    }

    /** {@link #outgoing(Policy)}, settled as {@code settlement} says. */
    private static MethodPolicy outgoing(Policy calls, dev.slidegate.core.Settlement settlement) {
        return new MethodPolicy(null, "DeciderTest#provider",
                new dev.slidegate.config.PolicyRegistry.Resolved("provider", calls, new KeySource.Client(), Map.of(), 1,
                        true, settlement),
                -1, MethodPolicy.Kind.STAGE, null, Map.of(), "provider", -1, null);
    }

    /** The second call of {@code mp}'s key through {@code d}, held ({@code why}) behind a first one admitted at once. */
    private static CompletableFuture<Outcome> heldBehindOne(Decider d, MethodPolicy mp, String why) {
        assertTrue(join(d.decide(mp, "client:provider", 1, null)).admitted());
        CompletableFuture<Outcome> held = d.decide(mp, "client:provider", 1, null).toCompletableFuture();
        assertFalse(held.isDone(), why);
        return held;
    }

    /** A decider whose calls wait on {@code timers} and are paced by {@code upstreams}, on the memory store. */
    private Decider outgoingDecider(ManualTimers timers, Upstreams upstreams) {
        return new Decider(new CallerKeys(), memory, call -> null, new Admission(new DecisionStats()),
                new Overrides(clock), new Waits(100, 10, 50_000_000L, clock::nanoTime, timers), waitStats, upstreams,
                new Leases(memory, new dev.slidegate.metrics.InFlightStats((io.micrometer.core.instrument.MeterRegistry) null),
                        clock::nanoTime, timers));
    }

    // a call that waits for its upstream from before an answer said the upstream's quota (placed under the configured
    // limits) gives its permit back and is decided again under the quota before it goes out
    @Test
    void aHeldOutgoingCallPlacedBeforeTheUpstreamSaidItsQuotaIsDecidedAgainUnderIt() {
        ManualTimers timers = new ManualTimers(clock);
        Policy calls = new Policy("provider", List.of(Limit.parse("2/1s")), Strategy.SLIDING_LOG, "client", false)
                .withMaxWait(3_000_000);
        MethodPolicy callsMp = outgoing(calls);
        Upstreams upstreams = upstreams(memory);
        Decider d = outgoingDecider(timers, upstreams);
        CompletableFuture<Outcome> held = heldBehindOne(d, callsMp,
                "held: the configured 2 per second are spread, one per 525 ms");
        quotaOfOne(upstreams, calls);
        untilDecided(timers, held, 300); // timers fire on time: it wakes at its permit's instant
        Outcome o = held.join();
        assertTrue(o.admitted(), o.toString());
        assertEquals(1, o.decisions().get(0).policy().limits().get(0).permits(), "decided under the quota now: " + o);
    }

    // the same when another instance heard the quota: the instance whose call waits reads what the fleet learned before
    // the call goes out, though it asked nothing meanwhile. It did not (it read the store only when asked), and its calls
    // placed under the configured limits went out together into the provider's quota (UpstreamFleetIT: eight in 13 ms,
    // four refused, the fleet held a second)
    @Test
    void aHeldOutgoingCallReadsTheQuotaAnotherInstanceHeardBeforeItGoesOut() {
        TwoInstances two = new TwoInstances(new ManualTimers(clock));
        CompletableFuture<Outcome> held = heldBehindOne(two.here, two.mp,
                "held: the configured 2 in 3 s are spread, one per 1.5 s");
        quotaOfOne(two.there, two.calls); // the other instance's answer said the quota; this one asks nothing until its call wakes
        two.admittedUnderTheQuota(held);
    }

    // a call placed ahead by an instance that read the store before another instance heard the quota (within the same
    // learned-refresh): it reads what the fleet learned before it is held, and waits for a permit under the quota, its
    // configured one given back at once. It waited for the configured one and was decided again only when it woke, when
    // the other instances had placed their calls after it (UpstreamFleetIT: six such calls at one instant, 0.9 s empty
    // at the provider)
    @Test
    void aCallPlacedAheadUnderTheConfiguredLimitsReadsTheQuotaAnotherInstanceHeardFirst() {
        TwoInstances two = new TwoInstances(new ManualTimers(clock));
        long start = clock.nanoTime();
        assertTrue(join(two.here.decide(two.mp, "client:provider", 1, null)).admitted()); // it read: nothing learned
        quotaOfOne(two.there, two.calls); // 1 in 3 s (and the margin)
        CompletableFuture<Outcome> held = two.here.decide(two.mp, "client:provider", 1, null).toCompletableFuture();
        assertFalse(held.isDone(), "held: a permit of 1 in 3 s is 3 s away");
        List<long[]> due = two.timers.due;
        assertEquals(1, due.size(), "one call held: " + due.size());
        assertTrue(due.get(0)[0] - start >= 3_000_000_000L, "held for the quota's permit, not the configured limits' (one "
                + "per 1.5 s): it wakes " + (due.get(0)[0] - start) / 1_000_000 + " ms after the first call");
        two.admittedUnderTheQuota(held);
    }

    /**
     * Two instances on the memory store: {@code here} decides calls of an outgoing policy of 2 in 3 s (one per 1.5 s,
     * spread) that may wait 5 s, {@code there} hears its upstream; what each learned is read again after 1 s of the clock.
     */
    private final class TwoInstances {
        final ManualTimers timers;
        final Policy calls = new Policy("provider", List.of(Limit.parse("2/3s")), Strategy.SLIDING_LOG, "client", false)
                .withMaxWait(5_000_000);
        final MethodPolicy mp = outgoing(calls);
        final Upstreams there = upstreams(memory, clock);
        final Decider here;

        TwoInstances(ManualTimers timers) {
            this.timers = timers;
            this.here = outgoingDecider(timers, upstreams(memory, clock));
        }

        /** The timers fire until {@code held} is decided: admitted, under the quota of 1 the upstream said. */
        void admittedUnderTheQuota(CompletableFuture<Outcome> held) {
            untilDecided(timers, held, 400);
            Outcome o = held.join();
            assertTrue(o.admitted(), o.toString());
            assertEquals(1, o.decisions().get(0).policy().limits().get(0).permits(), "decided under the quota: " + o);
        }
    }

    // an outgoing policy that settles, whose held call's permit its upstream voided (its quota lowered meanwhile): what
    // the call charged comes back once. It came back twice (the upstream stage settled it at 0, then the call's end
    // did), so the window lost the first call's charge too, and the call decided again under the lower quota went out
    // at once beside it: 2 in a window of 1
    @Test
    void aVoidedPermitOfAPolicyThatSettlesComesBackOnce() {
        ManualTimers timers = new ManualTimers(clock);
        Policy calls = new Policy("provider", List.of(Limit.parse("2/1s")), Strategy.FIXED_WINDOW, "client", false)
                .withMaxWait(5_000_000);
        // both calls in one window: an outgoing policy's windows are 1 s and the margin (50 ms), aligned to the epoch
        clock.advanceMicros(1_050_000 - clock.nowMicros() % 1_050_000 + 10_000);
        MethodPolicy settles = outgoing(calls, dev.slidegate.core.Settlement.REPORTED);
        Upstreams upstreams = upstreams(memory);
        Decider d = outgoingDecider(timers, upstreams);
        long start = clock.nowMicros();
        Outcome first = join(d.decide(settles, "client:provider", 1, null));
        assertTrue(first.admitted(), first.toString()); // runs on, unsettled: 1 of 2
        CompletableFuture<Outcome> held = d.decide(settles, "client:provider", 1, null).toCompletableFuture();
        assertFalse(held.isDone(), "held: the 2 a second are spread");
        quotaOfOne(upstreams, calls);
        untilDecided(timers, held, 300);
        long out = clock.nowMicros();
        assertTrue(held.join().admitted(), held.join().toString());
        assertTrue(out - start >= 900_000, "1 a second now, and the first call still counts: it went out "
                + (out - start) / 1000 + " ms after the first");
    }

    // a hold made while a call waits for its permit (another instance's 429) voids that permit: the call gives it back
    // before it is decided again, after the hold. Kept, the permit sat unused in its window behind the hold and the
    // next call went out a window later (UpstreamFleetIT: the fleet idle 1.5 s after a provider's 429s)
    @Test
    void aHeldCallAHoldCatchesGivesItsPermitBackAndGoesOutWhenTheHoldEnds() {
        ManualTimers timers = new ManualTimers(clock);
        Policy calls = new Policy("provider", List.of(Limit.parse("1/1s")), Strategy.SLIDING_LOG, "client", false)
                .withMaxWait(5_000_000);
        MethodPolicy callsMp = outgoing(calls);
        Upstreams upstreams = upstreams(memory);
        Decider d = outgoingDecider(timers, upstreams);
        long start = clock.nowMicros();
        CompletableFuture<Outcome> held = heldBehindOne(d, callsMp, "held for the next window's permit (1 s and the margin)");
        timers.advance(clock, 100_000);
        // the upstream refuses a call of another instance: nothing left for 1.5 s
        upstreams.learn(calls, "client:provider", 429, name -> name.equals("x-ratelimit-remaining-requests") ? List.of("0")
                : name.equals("x-ratelimit-reset-requests") ? List.of("1500ms") : null).toCompletableFuture().join();
        long holdEnds = clock.nowMicros() + 1_500_000;
        untilDecided(timers, held, 500);
        long out = clock.nowMicros();
        Outcome o = held.join();
        assertTrue(o.admitted(), o.toString());
        assertTrue(out >= holdEnds, "not before the hold ends: " + (out - start) / 1000 + " ms");
        assertTrue(out < holdEnds + 200_000, "it goes out when the hold ends, not a window after its voided permit: "
                + (out - start) / 1000 + " ms (the hold ends at " + (holdEnds - start) / 1000 + " ms)");
    }

    // what one method of a REST client learned paces every method that names the policy (each holds an equal policy of
    // its own): a client called whole and streamed keeps to the quota it learned
    @Test
    void whatOneMethodLearnedPacesAnotherMethodOfThePolicy() {
        Upstreams upstreams = upstreams(memory);
        Policy whole = new Policy("provider", List.of(Limit.parse("20/1s")), Strategy.SLIDING_LOG, "client", false);
        Policy streamed = new Policy("provider", List.of(Limit.parse("20/1s")), Strategy.SLIDING_LOG, "client", false);
        upstreams.learn(whole, "client:provider", 200, name -> name.equals("x-ratelimit-limit-requests") ? List.of("3")
                : null).toCompletableFuture().join();
        assertEquals(3, upstreams.paced(streamed, "client:provider").limits().get(0).permits());
        assertEquals(3, upstreams.paced(whole, "client:provider").limits().get(0).permits());
    }

    // a provider's quota of requests spent, its tokens not: the call's policy of tokens leaves it to the call's policy of
    // requests (which counts it), and is not held for the quota's reset; alone, it is
    @Test
    void aSpentQuotaAnotherPolicyOfTheCallCountsDoesNotHoldThisOne() {
        Upstreams upstreams = upstreams(memory);
        Policy tokens = new Policy("tokens", List.of(Limit.parse("100000/1s")), Strategy.SLIDING_LOG, "client", false)
                .withUnit("tokens");
        java.util.function.Function<String, List<String>> spent = name -> switch (name) {
            case "x-ratelimit-limit-requests" -> List.of("12");
            case "x-ratelimit-remaining-requests" -> List.of("0");
            case "x-ratelimit-reset-requests" -> List.of("1s");
            case "x-ratelimit-limit-tokens" -> List.of("2000");
            case "x-ratelimit-remaining-tokens" -> List.of("1500");
            case "x-ratelimit-reset-tokens" -> List.of("1s");
            default -> null;
        };
        upstreams.learn(tokens, "client:beside", 200, spent, unit -> unit.equals("requests")).toCompletableFuture().join();
        assertEquals(0L, upstreams.heldFor(tokens, "client:beside").toCompletableFuture().join());
        upstreams.learn(tokens, "client:alone", 200, spent).toCompletableFuture().join();
        assertTrue(upstreams.heldFor(tokens, "client:alone").toCompletableFuture().join() > 0);
    }

    // a held call that wakes later than its permit's instant by more than the tolerance (a pause: both clocks jump)
    // does not run on that permit: it is decided again with what is left of its max-wait, here too little, so it is
    // refused; its first permit stays charged
    @Test
    void aCallThatWakesTooLateIsDecidedAgainNotRun() {
        ManualTimers timers = new ManualTimers(clock);
        Decider d = waitingDecider(timers, 10);
        assertTrue(join(d.decide(waitingMp, "global", 1, null)).admitted());
        CompletableFuture<Outcome> held = d.decide(waitingMp, "global", 1, null).toCompletableFuture();
        assertFalse(held.isDone());
        Outcome o;
        try (dev.slidegate.testing.LogCapture log = dev.slidegate.testing.LogCapture.of("dev.slidegate.refused")) {
            timers.advance(clock, 1_200_000); // the timer fires 200 ms after the permit's instant: a pause
            o = held.join();
            // decided again with 0.8 s left, its next permit a second away: refused because the wait exceeds that
            assertTrue(log.lines().stream().anyMatch(l -> l.contains("further away than its max-wait")), log.lines()
                    .toString());
        }
        Outcome.Refused r = assertInstanceOf(Outcome.Refused.class, o, "decided again, and refused: " + o);
        assertTrue(r.decision().retryAfterMicros() > 700_000, "the first permit still counts: " + r.decision());
        assertEquals(1, o.decisions().size(), "the call's decisions are the new ones");
    }

    // a held call released on time, whose thread takes it up too late (a starved worker), does not run on its permit:
    // its runner decides it again, as a new arrival with what is left of its max-wait
    @Test
    void aHeldCallItsThreadTakesUpTooLateIsDecidedAgain() {
        ManualTimers timers = new ManualTimers(clock);
        Decider d = waitingDecider(timers, 10);
        assertTrue(join(d.decide(patientMp, "global", 1, null)).admitted());
        CompletableFuture<Outcome> held = d.decide(patientMp, "global", 1, null).toCompletableFuture();
        timers.advance(clock, 1_010_000); // released 10 ms after its permit's instant: on time
        Outcome.Admitted released = assertInstanceOf(Outcome.Admitted.class, held.join());
        assertFalse(d.late(released), "taken up at once, it runs");
        assertSame(released, d.startingNow(released), "nothing to decide again");
        timers.advance(clock, 50_000); // its thread comes 60 ms after the instant: later than the tolerance (50 ms)
        assertTrue(d.late(released));
        double lateBefore = late("w");
        CompletableFuture<Outcome> again;
        try (dev.slidegate.testing.LogCapture log = dev.slidegate.testing.LogCapture.of("dev.slidegate.waits")) {
            again = d.again(released).toCompletableFuture();
            assertTrue(log.lines().stream().anyMatch(l -> l.contains("Policy 'w'") && l.contains("too late")),
                    log.lines().toString());
        }
        assertEquals(lateBefore + 1, late("w"), "counted as late");
        // a new arrival 1.06 s after the first asking: 1.94 s of its 3 s left, its next permit 0.94 s away (the first
        // one stays charged); it waits for it
        assertFalse(again.isDone(), "held again");
        timers.advance(clock, 939_000);
        assertFalse(again.isDone(), "not before its new permit");
        timers.advance(clock, 2_000);
        Outcome.Admitted second = assertInstanceOf(Outcome.Admitted.class, again.join());
        assertNotSame(released.decisions().get(0), second.decisions().get(0), "its decisions are the new ones");
        assertFalse(d.late(second));
    }

    // a call admitted at once before its request was dispatched (the request filter, the router), where its policy may
    // wait, is checked where its thread takes it up, as a held call is: taken up later than the tolerance after it was
    // asked (a starved worker, a cold first call), it does not run beside the calls admitted after it, but is decided
    // again. Decided by the thread that runs it, or under a policy that never waits, nothing is checked
    @Test
    void aCallAdmittedAtOnceAheadOfItsThreadIsDecidedAgainWhenTakenUpTooLate() {
        ManualTimers timers = new ManualTimers(clock);
        Decider d = waitingDecider(timers, 10);
        Outcome.Admitted first = assertInstanceOf(Outcome.Admitted.class,
                join(d.decideAhead(List.of(patientMp), new Object[0], null)));
        timers.advance(clock, 50_000); // its thread takes it up 50 ms after it was asked: on time
        assertFalse(d.late(first), "taken up within the tolerance, it runs");
        assertSame(first, d.startingNow(first), "nothing to decide again");
        timers.advance(clock, 1_000); // 51 ms: later than the tolerance (50 ms)
        assertTrue(d.late(first));
        double lateBefore = late("w");
        CompletableFuture<Outcome> again = d.again(first).toCompletableFuture();
        assertEquals(lateBefore + 1, late("w"), "counted as late");
        // its first permit stays charged: a new arrival 51 ms after it, whose next permit is 949 ms away, within what is
        // left of its max-wait; it waits for it
        assertFalse(again.isDone(), "held");
        timers.advance(clock, 948_000);
        assertFalse(again.isDone(), "not before its new permit");
        timers.advance(clock, 2_000);
        Outcome.Admitted second = assertInstanceOf(Outcome.Admitted.class, again.join());
        assertNotSame(first.decisions().get(0), second.decisions().get(0), "its decisions are the new ones");
        assertFalse(d.late(second));

        MethodPolicy inline = new MethodPolicy(null, "DeciderTest#inline",
                new dev.slidegate.config.PolicyRegistry.Resolved("i", waiting.withMaxWait(3_000_000)
                        .withName("i"), new KeySource.Global(), Map.of(), 1, false, dev.slidegate.core.Settlement.OFF),
                -1, MethodPolicy.Kind.STAGE, null, Map.of(), null, -1, null);
        Outcome.Admitted onItsThread = assertInstanceOf(Outcome.Admitted.class,
                join(d.decide(List.of(inline), new Object[0], null)));
        MethodPolicy never = new MethodPolicy(null, "DeciderTest#never",
                new dev.slidegate.config.PolicyRegistry.Resolved("n", waiting.withMaxWait(0).withName("n"),
                        new KeySource.Global(), Map.of(), 1, false, dev.slidegate.core.Settlement.OFF),
                -1, MethodPolicy.Kind.STAGE, null, Map.of(), null, -1, null);
        Outcome.Admitted neverWaits = assertInstanceOf(Outcome.Admitted.class,
                join(d.decideAhead(List.of(never), new Object[0], null)));
        timers.advance(clock, 100_000);
        assertFalse(d.late(onItsThread), "decided where it runs");
        assertFalse(d.late(neverWaits), "a policy without max-wait bounds its decisions");
    }

    /** A store whose answers, while {@link #slow}, arrive only when the test says ({@link #answer}). */
    private static final class LateAnswers extends dev.slidegate.core.ForwardingStore {
        final List<Runnable> answers = new java.util.ArrayList<>();
        boolean slow;
        int asked;

        LateAnswers(DecisionStore delegate) {
            super(delegate);
        }

        @Override
        public CompletionStage<Decision> acquire(Policy policy, String key, int cost, long maxWait) {
            asked++;
            CompletionStage<Decision> decided = super.acquire(policy, key, cost, maxWait);
            if (!slow) {
                return decided;
            }
            CompletableFuture<Decision> late = new CompletableFuture<>();
            answers.add(() -> decided.thenAccept(late::complete));
            return late;
        }

        /** The answers held back arrive now. */
        void answer() {
            List<Runnable> now = List.copyOf(answers);
            answers.clear();
            now.forEach(Runnable::run);
        }
    }

    // a store's answer that arrives late cannot hide the lateness: the wait is counted from the answer's arrival (never
    // early), but judged from when the store was asked, the earliest instant the permit can be
    @Test
    void aHeldCallWhoseAnswerArrivedLateIsJudgedFromWhenTheStoreWasAsked() {
        ManualTimers timers = new ManualTimers(clock);
        LateAnswers store = new LateAnswers(memory);
        Decider d = waitingDecider(timers, 10, store);
        assertTrue(join(d.decide(patientMp, "global", 1, null)).admitted());
        store.slow = true;
        long askedAt = clock.nowMicros();
        CompletableFuture<Outcome> held = d.decide(patientMp, "global", 1, null).toCompletableFuture();
        timers.advance(clock, 100_000); // its answer (a permit 1 s after the asking) arrives 100 ms late
        store.answer();
        store.slow = false;
        timers.advance(clock, 1_005_000); // the wait counted from the answer's arrival is over
        assertFalse(held.isDone(), "about 100 ms after its permit's instant: not run on it, decided again and held anew");
        untilDecided(timers, held, 200);
        Outcome.Admitted again = assertInstanceOf(Outcome.Admitted.class, held.join());
        assertTrue(again.decisions().get(0).atMicros() >= askedAt + 2_000_000, "runs on a new permit, a window later: "
                + again + ", asked at " + askedAt);
        // an answer that arrives at once changes nothing: the call runs on its permit
        timers.advance(clock, 2_000_000);
        assertTrue(join(d.decide(patientMp, "global", 1, null)).admitted());
        CompletableFuture<Outcome> onTime = d.decide(patientMp, "global", 1, null).toCompletableFuture();
        timers.advance(clock, 1_001_000);
        assertTrue(onTime.join().admitted());
    }

    // where the store's clock is known on the instance's (every answer of a shared store places it: PermitInstants), a
    // held call whose own answer arrived late runs on its permit all the same: its permit's instant is known to within a
    // quick answer's round trip, not its own. Without it (above) the call waited its whole wait only to be judged late
    // and decided again behind every call placed meanwhile (UpstreamFleetIT on a loaded machine)
    @Test
    void aHeldCallWhoseAnswerArrivedLateRunsOnItsPermitWhereTheStoresClockIsKnown() {
        ManualTimers timers = new ManualTimers(clock);
        LateAnswers store = new LateAnswers(memory);
        dev.slidegate.core.PermitInstants instants = new dev.slidegate.core.PermitInstants(clock::nanoTime);
        Decider d = waitingDecider(timers, 10, store, instants);
        assertTrue(join(d.decide(patientMp, "global", 1, null)).admitted());
        instants.timed(clock.nanoTime(), clock.nanoTime() + 200_000, clock.nowMicros() + 100); // one quick answer
        store.slow = true;
        long askedAt = clock.nowMicros();
        CompletableFuture<Outcome> held = d.decide(patientMp, "global", 1, null).toCompletableFuture();
        timers.advance(clock, 100_000); // its answer (a permit 1 s after the asking) arrives 100 ms late
        store.answer();
        store.slow = false;
        timers.advance(clock, 899_000);
        assertFalse(held.isDone(), "not before its permit's instant, 1 s after the asking");
        timers.advance(clock, 2_000);
        Outcome.Admitted on = assertInstanceOf(Outcome.Admitted.class, held.join(), "run on its permit, at its instant");
        assertEquals(askedAt + 1_000_000, on.decisions().get(0).atMicros(), 1_000, on.toString());
        assertEquals(2, store.asked, "not decided again");
        assertEquals(0.0, late("w"));
    }

    // issue 56, point 3: a permit used late within the tolerance occupies its window for the tolerance too. A call
    // admitted at once whose answer took 40 ms (within the 50 ms tolerance) runs 40 ms after its permit's instant; the
    // next call, held for the next permit, runs on time. Counted in plain windows of 1 s, the two runs, by the clock of
    // the code they protect, were 960 ms apart: two runs of a 1/1s policy in one second. With the store stack as
    // shipped (the late occupancy on top), they are at least a window apart
    @Test
    void aPermitUsedLateWithinTheToleranceOccupiesItsWindowForIt() {
        ManualTimers timers = new ManualTimers(clock);
        LateAnswers store = new LateAnswers(new dev.slidegate.core.LateOccupancy(memory, 50_000));
        Decider d = waitingDecider(timers, 10, store);
        List<Long> runs = new java.util.ArrayList<>();
        store.slow = true;
        CompletableFuture<Outcome> first = d.decide(patientMp, "global", 1, null).toCompletableFuture();
        first.thenRun(() -> runs.add(timers.nanos()));
        timers.advance(clock, 40_000);
        store.slow = false;
        store.answer();
        assertTrue(first.isDone() && first.join().admitted(), "admitted at once: its answer came within the tolerance");
        CompletableFuture<Outcome> second = d.decide(patientMp, "global", 1, null).toCompletableFuture();
        second.thenRun(() -> runs.add(timers.nanos()));
        for (int step = 0; step < 2_000 && !second.isDone(); step++) {
            timers.advance(clock, 1_000);
        }
        assertTrue(second.isDone(), "held for a permit within its max-wait");
        Outcome o = second.join();
        assertTrue(o.admitted(), o.toString());
        assertEquals(2, runs.size());
        assertTrue(runs.get(1) - runs.get(0) >= 1_000_000_000L, "two runs of 1/1s " + (runs.get(1) - runs.get(0)) / 1_000_000
                + " ms apart by the protected code's clock");
        // what the call answers names the limit as configured, not the wider window the store counts
        assertEquals("1/1s", o.decisions().get(0).policy().limits().get(0).toString());
        assertEquals(Limit.parse("1/1s"), o.decisions().get(0).states().get(0).limit());
    }

    // issue 56, point 3: a call admitted at once whose answer arrived later than the tolerance after it was asked ran on
    // that permit, up to the answer's delay after it, beside the calls held for the next window's permits (a bean method
    // returning CompletionStage: 27 to 36 runs in one second of 20/1s by its own clock). It is decided again, as a held
    // call that woke late is
    @Test
    void aCallAdmittedAtOnceWhoseAnswerArrivedLateIsDecidedAgain() {
        ManualTimers timers = new ManualTimers(clock);
        LateAnswers store = new LateAnswers(memory);
        store.slow = true;
        Decider d = waitingDecider(timers, 10, store);
        long askedAt = clock.nowMicros();
        CompletableFuture<Outcome> first = d.decide(patientMp, "global", 1, null).toCompletableFuture();
        timers.advance(clock, 100_000); // admitted at once, but its answer arrives 100 ms after the asking
        store.slow = false;
        store.answer();
        assertFalse(first.isDone(), "not run on a permit 100 ms old: decided again, and held for the next one");
        assertEquals(2, store.asked);
        for (int step = 0; step < 200 && !first.isDone(); step++) {
            timers.advance(clock, 10_000);
        }
        Outcome.Admitted again = assertInstanceOf(Outcome.Admitted.class, first.join());
        assertTrue(again.decisions().get(0).atMicros() >= askedAt + 1_000_000, "runs on a new permit, a window after the "
                + "first: " + again + ", asked at " + askedAt);
        assertEquals(1.0, late("w"), "counted late");
        // an answer that arrives within the tolerance changes nothing: the call runs on its permit
        timers.advance(clock, 2_000_000);
        store.slow = true;
        CompletableFuture<Outcome> onTime = d.decide(patientMp, "global", 1, null).toCompletableFuture();
        timers.advance(clock, 30_000);
        store.answer();
        Outcome.Admitted at = assertInstanceOf(Outcome.Admitted.class, onTime.join());
        assertEquals(0, at.decisions().get(0).waitMicros());
        assertEquals(3, store.asked);
    }

    // a call admitted at once whose answer came late: its permit is at the instant the store decided, somewhere between
    // the asking and the arrival. Alone, the call judges it from the asking and is decided again; where the store's clock
    // is known on the instance's, a store that decided just before answering placed a recent permit, and the call runs
    @Test
    void aCallAdmittedAtOnceByAStoreThatDecidedLateRunsWhereTheStoresClockIsKnown() {
        ManualTimers timers = new ManualTimers(clock);
        dev.slidegate.core.PermitInstants instants = new dev.slidegate.core.PermitInstants(clock::nanoTime);
        instants.timed(clock.nanoTime(), clock.nanoTime() + 200_000, clock.nowMicros() + 100); // one quick answer
        for (dev.slidegate.core.PermitInstants known : List.of(dev.slidegate.core.PermitInstants.unknown(), instants)) {
            timers.advance(clock, 2_000_000); // a window and more since the last call
            LateDecisions store = new LateDecisions(memory);
            Decider d = waitingDecider(timers, 10, store, known);
            CompletableFuture<Outcome> call = d.decide(patientMp, "global", 1, null).toCompletableFuture();
            timers.advance(clock, 100_000); // asked 100 ms ago; the store decides now and answers at once
            store.decideNow();
            if (known == instants) {
                Outcome.Admitted ran = assertInstanceOf(Outcome.Admitted.class, call.join());
                assertEquals(0, ran.decisions().get(0).waitMicros());
                assertEquals(1, store.asked, "not decided again: its permit is recent");
            } else {
                assertFalse(call.isDone(), "judged from the asking, 100 ms back: decided again, held for the next permit");
                assertEquals(2, store.asked);
                untilDecided(timers, call, 300);
            }
        }
    }

    /** A store that decides a call only when told ({@link #decideNow}), long after it was asked, and answers at once. */
    private static final class LateDecisions extends dev.slidegate.core.ForwardingStore {
        private final List<Runnable> pending = new java.util.ArrayList<>();
        int asked;
        private boolean first = true;

        LateDecisions(DecisionStore delegate) {
            super(delegate);
        }

        @Override
        public CompletionStage<Decision> acquire(Policy policy, String key, int cost, long maxWait) {
            asked++;
            if (!first) {
                return super.acquire(policy, key, cost, maxWait);
            }
            first = false;
            CompletableFuture<Decision> late = new CompletableFuture<>();
            pending.add(() -> super.acquire(policy, key, cost, maxWait).thenAccept(late::complete));
            return late;
        }

        void decideNow() {
            List<Runnable> now = List.copyOf(pending);
            pending.clear();
            now.forEach(Runnable::run);
        }
    }

    // a thread that may not block (an event loop) cannot wait for a new permit: the late call is decided without waiting
    @Test
    void aCallTakenUpTooLateOnAThreadThatMayNotBlockIsDecidedWithoutWaiting() {
        ManualTimers timers = new ManualTimers(clock);
        Decider d = waitingDecider(timers, 10);
        assertTrue(join(d.decide(waitingMp, "global", 1, null)).admitted());
        CompletableFuture<Outcome> held = d.decide(waitingMp, "global", 1, null).toCompletableFuture();
        timers.advance(clock, 1_001_000);
        Outcome released = held.join();
        timers.advance(clock, 100_000);
        Outcome o = d.startingNow(released, false);
        Outcome.Refused r = assertInstanceOf(Outcome.Refused.class, o, "its next permit is 0.9 s away: " + o);
        assertTrue(r.decision().retryAfterMicros() > 800_000, r.decision().toString());
        // later, once the window has passed, a late call is admitted at once
        timers.advance(clock, 1_000_000);
        CompletableFuture<Outcome> next = d.decide(waitingMp, "global", 1, null).toCompletableFuture();
        timers.advance(clock, 1_001_000);
        Outcome nextReleased = next.join();
        timers.advance(clock, 60_000);
        Outcome.Admitted now = assertInstanceOf(Outcome.Admitted.class, d.startingNow(nextReleased, false));
        assertEquals(0, now.decisions().get(0).waitMicros(), now.toString());
    }

    // what a late call charged to settle comes back when it is decided again: its estimate does not count twice
    @Test
    void aCallTakenUpTooLateGivesBackWhatItChargedToSettle() {
        ManualTimers timers = new ManualTimers(clock);
        Decider d = waitingDecider(timers, 10);
        Policy tokens = new Policy("tokens", List.of(Limit.parse("4/1s")), Strategy.SLIDING_COUNTER, "global", false, false,
                Policy.DEFAULT_CELLS, dev.slidegate.api.FailMode.LOCAL, 2_000_000);
        MethodPolicy settles = new MethodPolicy(
                null, "DeciderTest#tokens", new dev.slidegate.config.PolicyRegistry.Resolved("tokens", tokens,
                        new KeySource.Global(), Map.of(), 3, false, dev.slidegate.core.Settlement.REPORTED),
                -1, MethodPolicy.Kind.STAGE, null, Map.of(), null, -1, null);
        assertTrue(join(d.decide(settles, "global", 3, null)).admitted()); // runs on, unsettled
        CompletableFuture<Outcome> held = d.decide(settles, "global", 3, null).toCompletableFuture();
        for (int step = 0; step < 150 && !held.isDone(); step++) {
            timers.advance(clock, 10_000); // until its permit's instant comes
        }
        Outcome.Admitted released = assertInstanceOf(Outcome.Admitted.class, held.join());
        assertNotNull(released.settling(), "it settles when it ends");
        timers.advance(clock, 100_000);
        // the first call's 3 have left the window; the late call's own 3 came back: 3 more fit at once
        Outcome.Admitted again = assertInstanceOf(Outcome.Admitted.class, join(d.again(released)));
        assertEquals(0, again.decisions().get(0).waitMicros(), again.toString());
        assertInstanceOf(Outcome.Refused.class, join(d.decide(settles, "global", 3, 0, null, false)), "and no more than that");
    }

    // a held call that wakes within the tolerance runs on its permit
    @Test
    void aCallThatWakesAlittleLateStillRuns() {
        ManualTimers timers = new ManualTimers(clock);
        Decider d = waitingDecider(timers, 10);
        assertTrue(join(d.decide(waitingMp, "global", 1, null)).admitted());
        CompletableFuture<Outcome> held = d.decide(waitingMp, "global", 1, null).toCompletableFuture();
        timers.advance(clock, 1_040_000);
        assertTrue(held.join().admitted());
    }

    // beyond the waiting room's share of a key, a call that could have waited is refused at once, saying so; one
    // whose permit is too far away anyway is an ordinary refusal
    @Test
    void aFullWaitingRoomRefusesAtOnceWithItsOwnReason() {
        ManualTimers timers = new ManualTimers(clock);
        Decider d = waitingDecider(timers, 1);
        Policy patient = waiting.withName("patient").withMaxWait(5_000_000);
        MethodPolicy mp = new MethodPolicy(
                null, "DeciderTest#patient", new dev.slidegate.config.PolicyRegistry.Resolved("patient", patient,
                        new KeySource.Global(), Map.of(), 1, false, dev.slidegate.core.Settlement.OFF),
                -1, MethodPolicy.Kind.STAGE, null, Map.of(), null, -1, null);
        assertTrue(join(d.decide(mp, "global", 1, null)).admitted());
        CompletableFuture<Outcome> held = d.decide(mp, "global", 1, null).toCompletableFuture();
        assertFalse(held.isDone());
        Outcome.Refused full;
        try (dev.slidegate.testing.LogCapture log = dev.slidegate.testing.LogCapture.of("dev.slidegate.refused")) {
            full = assertInstanceOf(Outcome.Refused.class, join(d.decide(mp, "global", 1, null)));
            // the refusal log says why: the room, not the limit
            assertEquals(1, log.lines().size(), log.lines().toString());
            assertTrue(log.lines().get(0).contains("they could have waited, but slidegate.wait.max-waiting"),
                    log.lines().get(0));
        }
        assertTrue(full.failure().waitingRoomFull(), full.failure().getMessage());
        assertTrue(full.failure().getMessage().contains("too many calls are waiting"), full.failure().getMessage());
        assertTrue(join(d.decide(mp, "another", 1, null)).admitted(), "another key has its own share");
        timers.advance(clock, 1_001_000);
        assertTrue(held.join().admitted());
        // the place is back: the next call waits for its permit again
        CompletableFuture<Outcome> next = d.decide(mp, "global", 1, null).toCompletableFuture();
        assertFalse(next.isDone(), "waits again");
    }

    // an exempt caller is never refused and never held: admitted at once, even where others wait
    @Test
    void anExemptCallerIsNeverHeld() {
        ManualTimers timers = new ManualTimers(clock);
        Overrides overrides = new Overrides(clock);
        overrides.replaceAll(List.of(new dev.slidegate.api.LimitOverride(new dev.slidegate.api.LimitOverride.Target("w", null,
                "vip"), List.of(), false, true, null, "trusted", "test", java.time.Instant.now())));
        Decider d = new Decider(null, memory, call -> null, new Admission(new DecisionStats()), overrides,
                new Waits(100, 10, 50_000_000L, clock::nanoTime, timers), waitStats, upstreams(memory),
                new Leases(memory, new dev.slidegate.metrics.InFlightStats((io.micrometer.core.instrument.MeterRegistry) null),
                        clock::nanoTime, timers));
        assertTrue(join(d.decide(waitingMp, "vip", 1, null)).admitted());
        CompletableFuture<Outcome> second = d.decide(waitingMp, "vip", 1, null).toCompletableFuture();
        assertTrue(second.isDone() && second.join().admitted(), "not held: " + second);
        assertFalse(second.join().decisions().get(0).waits());
        assertTrue(timers.tasks.isEmpty(), "no timer set");
    }
}
