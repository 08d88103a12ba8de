package dev.slidegate.engine;

import dev.slidegate.core.DecisionStore;
import dev.slidegate.core.Overrides;
import dev.slidegate.metrics.DecisionStats;
import dev.slidegate.testing.ManualClock;

/** The engine as the service wires it, outside CDI, on a clock a test moves: for the entry points' own tests. */
public final class Deciders {

    private Deciders() {
    }

    /** A decider on {@code store} with the shipped settings, no plans, and no call that waits. */
    public static Decider on(DecisionStore store, ManualClock clock) {
        DeciderTest.ManualTimers timers = new DeciderTest.ManualTimers(clock);
        return new Decider(new CallerKeys(), store, call -> null, new Admission(new DecisionStats()), new Overrides(clock),
                new Waits(100, 10, 50_000_000L, clock::nanoTime, timers),
                new dev.slidegate.metrics.WaitStats((io.micrometer.core.instrument.MeterRegistry) null),
                DeciderTest.upstreams(store),
                new Leases(store, new dev.slidegate.metrics.InFlightStats((io.micrometer.core.instrument.MeterRegistry) null),
                        clock::nanoTime, timers));
    }
}
