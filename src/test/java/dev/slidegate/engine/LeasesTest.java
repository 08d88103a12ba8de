package dev.slidegate.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;

import org.junit.jupiter.api.Test;

import dev.slidegate.api.Policy;
import dev.slidegate.config.KeySource;
import dev.slidegate.core.DecisionStore;
import dev.slidegate.entry.VertxThreads;
import dev.slidegate.memory.MemoryStore;
import dev.slidegate.metrics.DecisionStats;
import dev.slidegate.metrics.InFlightStats;
import dev.slidegate.testing.ForwardingStore;
import dev.slidegate.testing.LogCapture;
import dev.slidegate.testing.ManualClock;

/**
 * Leases of calls in flight on one instance, on a settable clock that moves the store and the timers together: renewed
 * once per third of the lease time with one store call per key, kept alive past the lease time while the call runs,
 * lost (and counted) when the instance pauses longer than that, and the timer stops when nothing is in flight.
 */
class LeasesTest {

    private final ManualClock clock = new ManualClock();
    private final MemoryStore memory = new MemoryStore(clock, 100);
    private final List<List<Long>> renewals = new ArrayList<>();
    private final List<List<Long>> releases = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final DecisionStore counted = new ForwardingStore(memory) {
        @Override
        public CompletionStage<List<Long>> renew(Policy policy, String key, List<Long> leases) {
            renewals.add(leases);
            return super.renew(policy, key, leases);
        }

        @Override
        public CompletionStage<List<Long>> leave(Policy policy, String key, List<Long> leases) {
            releases.add(leases);
            return super.leave(policy, key, leases);
        }
    };
    private final DeciderTest.ManualTimers timers = new DeciderTest.ManualTimers(clock);
    private final InFlightStats stats = new InFlightStats((io.micrometer.core.instrument.MeterRegistry) null);
    private final Leases leases = new Leases(counted, stats, clock::nanoTime, timers, new VertxThreads(null));
    private final Policy exports = Policy.inFlight("exports", 2, 3_000_000, "ip");
    private final MethodPolicy mp = new MethodPolicy(
            null, "LeasesTest", new dev.slidegate.config.PolicyRegistry.Resolved("exports", exports, new KeySource.Global(),
                    Map.of(), 1, false, dev.slidegate.core.Settlement.OFF),
            -1, MethodPolicy.Kind.STAGE, null, Map.of(), null, -1, null);
    private final Decider decider = new Decider(null, counted, call -> null, new Admission(new DecisionStats()),
            new dev.slidegate.core.Overrides(clock), new Waits(10, 10, 50_000_000L, clock::nanoTime, timers),
            new dev.slidegate.metrics.WaitStats((io.micrometer.core.instrument.MeterRegistry) null),
            DeciderTest.upstreams(counted), leases);

    private Outcome call(String key) {
        return decider.decide(mp, key, 1, null).toCompletableFuture().join();
    }

    /** Moves time in steps of {@code stepMicros}, running the timers due at each. */
    private void run(long micros, long stepMicros) {
        for (long t = 0; t < micros; t += stepMicros) {
            timers.advance(clock, stepMicros);
        }
    }

    // calls of one key that end in one turn of an event loop (responses written together) end in one store call after
    // it; off an event loop each ends at once
    @Test
    void callsEndingInOneTurnOfTheLoopEndTheirLeasesInOneStoreCall() throws Exception {
        Outcome.Admitted a = assertInstanceOf(Outcome.Admitted.class, call("k"));
        Outcome.Admitted b = assertInstanceOf(Outcome.Admitted.class, call("k"));
        io.vertx.core.Vertx vertx = io.vertx.core.Vertx.vertx();
        try {
            java.util.concurrent.CompletableFuture<Void> ended = new java.util.concurrent.CompletableFuture<>();
            vertx.getOrCreateContext().runOnContext(v -> {
                a.end();
                b.end();
                assertEquals(List.of(), releases, "nothing sent before the turn is over");
                ended.complete(null);
            });
            ended.join();
            dev.slidegate.testing.Eventually.eventually(java.time.Duration.ofSeconds(10), releases::size, n -> n == 1,
                    "one release sent after the turn");
            assertEquals(List.of(List.of(a.decisions().get(0).atMicros(), b.decisions().get(0).atMicros())), releases);
        } finally {
            vertx.close();
        }
        assertTrue(assertInstanceOf(Outcome.Admitted.class, call("k")).decisions().get(0).allowed(), "both slots free");
        Outcome.Admitted c = assertInstanceOf(Outcome.Admitted.class, call("k"));
        c.end();
        assertEquals(2, releases.size(), "off an event loop: ended at once");
    }

    @Test
    void runningCallsKeepTheirSlotsPastTheLeaseTimeWithOneRenewalPerKeyAndThird() {
        Outcome.Admitted a = assertInstanceOf(Outcome.Admitted.class, call("k"));
        Outcome.Admitted b = assertInstanceOf(Outcome.Admitted.class, call("k"));
        assertEquals(2, leases.inFlight());
        assertEquals(2, stats.inFlight("exports"));
        run(10_000_000, 50_000); // 10 s: more than three lease times
        assertInstanceOf(Outcome.Refused.class, call("k"), "both calls still hold their slots");
        // every third of 3 s, checked every 250 ms: 8 to 10 renewals in 10 s, each naming both calls at once
        assertTrue(renewals.size() >= 8 && renewals.size() <= 10, renewals.size() + " renewals");
        assertTrue(renewals.stream().allMatch(r -> r.size() == 2), "one call per key: " + renewals);
        a.end();
        a.end(); // again: nothing
        assertEquals(1, leases.inFlight());
        assertInstanceOf(Outcome.Admitted.class, call("k"), "an ended call's slot is free at once").end();
        b.end();
        assertEquals(0, leases.inFlight());
        assertEquals(0, stats.inFlight("exports"));
        run(1_000_000, 250_000);
        int before = renewals.size();
        assertTrue(timers.tasks.isEmpty(), "nothing in flight: the timer stopped");
        run(5_000_000, 250_000);
        assertEquals(before, renewals.size(), "nothing renewed while nothing runs");
    }

    // a pause longer than the lease time: the store let the leases go, other calls took the slots, and the paused
    // instance, once it runs again, counts its calls as lost (stated in one log line) instead of renewing them
    @Test
    void aPauseLongerThanTheLeaseTimeLosesTheLeasesAndSaysSo() {
        try (LogCapture log = LogCapture.of("dev.slidegate")) {
            Outcome.Admitted paused = assertInstanceOf(Outcome.Admitted.class, call("k"));
            assertInstanceOf(Outcome.Admitted.class, call("k"));
            pause(3_500_000);
            assertEquals(2, memory.peek(exports, "k").toCompletableFuture().join().remaining(), "the store let both go");
            timers.advance(clock, 1); // the instance runs again: its next tick renews, and finds both gone
            assertEquals(0, leases.inFlight(), "lost leases are no longer renewed");
            assertEquals(0, stats.inFlight("exports"));
            paused.end(); // ending a lost lease frees nothing of anyone else's
            assertEquals(2, memory.peek(exports, "k").toCompletableFuture().join().remaining());
            assertFalse(timers.tasks.isEmpty() && leases.inFlight() > 0);
            run(1_000_000, 250_000);
            assertEquals(List.of("WARN Slidegate: 2 call(s) of policy 'exports' lost their leases while they ran (this "
                    + "instance was paused for 3500 ms, longer than the lease time 3s): other instances could start as "
                    + "many meanwhile, so more than max-in-flight=2 may run until these end"), warnings(log));
        }
    }

    // the calls of a paused instance may end before its renewal timer runs again (their ends were due during the pause
    // too, and run first): the store says the leases they end were gone, and that is said the same way, in one line for
    // the calls found in one tick, however they are found (ended first, or by the renewal)
    @Test
    void callsThatEndBeforeTheRenewalAfterAPauseStillSayTheyLostTheirLeases() {
        try (LogCapture log = LogCapture.of("dev.slidegate")) {
            Outcome.Admitted a = assertInstanceOf(Outcome.Admitted.class, call("k"));
            Outcome.Admitted b = assertInstanceOf(Outcome.Admitted.class, call("k"));
            pause(3_500_000);
            a.end();
            b.end();
            assertEquals(0, leases.inFlight());
            run(1_000_000, 250_000);
            assertEquals(1, warnings(log).size(), warnings(log).toString());
            assertTrue(warnings(log).get(0).contains("2 call(s) of policy 'exports' lost their leases while they ran (this "
                    + "instance was paused for 3500 ms"), warnings(log).toString());

            // one ends first, the renewal finds the other: still one line for both
            Outcome.Admitted c = assertInstanceOf(Outcome.Admitted.class, call("j"));
            assertInstanceOf(Outcome.Admitted.class, call("j"));
            pause(4_000_000);
            c.end();
            timers.advance(clock, 1);
            assertEquals(0, leases.inFlight(), "the renewal found the other gone");
            run(1_000_000, 250_000);
            assertEquals(2, warnings(log).size(), warnings(log).toString());
            assertTrue(warnings(log).get(1).contains("2 call(s) of policy 'exports' lost their leases while they ran (this "
                    + "instance was paused for 4000 ms"), warnings(log).toString());

            // the key reset while a call runs: its end says so, without a pause
            Outcome.Admitted d = assertInstanceOf(Outcome.Admitted.class, call("r"));
            run(500_000, 250_000);
            memory.reset(exports, "r").toCompletableFuture().join();
            d.end();
            run(1_000_000, 250_000);
            assertEquals(3, warnings(log).size(), warnings(log).toString());
            assertTrue(warnings(log).get(2).contains("1 call(s) of policy 'exports' lost their leases while they ran (the "
                    + "store no longer held them: they went unrenewed for the lease time 3s, or the key was reset)"),
                    warnings(log).toString());

            // calls that end in time say nothing
            assertInstanceOf(Outcome.Admitted.class, call("n")).end();
            run(5_000_000, 250_000);
            assertEquals(3, warnings(log).size(), warnings(log).toString());
        }
    }

    /** The instance stops for {@code micros}: its timers do not run meanwhile, the clock goes on. */
    private void pause(long micros) {
        clock.advanceMicros(micros);
    }

    /** The WARN lines about this test's policy (the logger is the JVM's: a Quarkus test's app may log beside it). */
    private static List<String> warnings(LogCapture log) {
        return log.lines().stream().filter(l -> l.startsWith("WARN") && l.contains("policy 'exports'")).toList();
    }
}
