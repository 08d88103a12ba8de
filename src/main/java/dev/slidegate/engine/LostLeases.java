package dev.slidegate.engine;

import java.util.concurrent.ConcurrentHashMap;

import org.jboss.logging.Logger;

import dev.slidegate.api.Policy;

/**
 * Says calls whose leases were found gone while they ran (a paused instance, a key reset): counted in the metrics at once,
 * and one warning per policy a tick after the first is found, however many there are.
 */
final class LostLeases {

    private static final Logger LOG = Logger.getLogger("dev.slidegate");

    /** Leases of one policy found gone within one tick; changed only inside {@code unsaid.compute}. */
    private static final class Unsaid {
        final Policy policy;
        int calls;
        long stallNanos;

        Unsaid(Policy policy) {
            this.policy = policy;
        }
    }

    private final dev.slidegate.metrics.InFlightStats stats;
    private final Waits.Timer timer;
    private final long tickNanos;
    /** Leases found gone and not said yet, per policy name: said together one tick after the first is found. */
    private final ConcurrentHashMap<String, Unsaid> unsaid = new ConcurrentHashMap<>();

    LostLeases(dev.slidegate.metrics.InFlightStats stats, Waits.Timer timer, long tickNanos) {
        this.stats = stats;
        this.timer = timer;
        this.tickNanos = tickNanos;
    }

    /**
     * Counts {@code calls} of {@code policy} whose leases were found gone (in the metrics at once), {@code stallNanos} being
     * how long this instance
     * had stalled (its timer late) when they were; the first of a tick schedules the line that says them all.
     */
    void lost(Policy policy, int calls, long stallNanos) {
        stats.lost(policy.name(), calls);
        Unsaid[] created = new Unsaid[1];
        unsaid.compute(policy.name(), (name, l) -> {
            if (l == null) {
                l = created[0] = new Unsaid(policy);
            }
            l.calls += calls;
            l.stallNanos = Math.max(l.stallNanos, stallNanos);
            return l;
        });
        if (created[0] != null) {
            timer.schedule(tickNanos, () -> say(policy.name()));
        }
    }

    private void say(String policyName) {
        Unsaid l = unsaid.remove(policyName); // atomic with compute: what comes after starts a new line
        if (l == null) {
            return;
        }
        Policy p = l.policy;
        String lease = dev.slidegate.api.Limit.durationText(p.leaseMicros() / 1000);
        LOG.warnf("Slidegate: %d call(s) of policy '%s' lost their leases while they ran (%s): other instances could start "
                + "as many meanwhile, so more than max-in-flight=%d may run until these end", l.calls, p.name(),
                l.stallNanos > p.leaseMicros() * 1000
                        ? "this instance was paused for " + l.stallNanos / 1_000_000 + " ms, longer than the lease time "
                                + lease
                        : "the store no longer held them: they went unrenewed for the lease time " + lease
                                + ", or the key was reset",
                p.maxInFlight());
    }
}
