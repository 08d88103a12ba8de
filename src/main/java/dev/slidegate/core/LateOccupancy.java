package dev.slidegate.core;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Limit;
import dev.slidegate.api.LimitState;
import dev.slidegate.api.Policy;
import dev.slidegate.api.Strategy;

/**
 * A permit that may be used late occupies its window for that lateness too (issue 56). A call of a policy that may wait
 * runs at most {@code slidegate.wait.late-tolerance} after its permit's instant (a later one is decided again), so by
 * the protected code's clock N permits of one window can meet the next window's, run on time, within W. Counting each
 * permit of such a policy in a window of W + tolerance keeps at most N runs in any W by the clock of the code that runs
 * them: runs in [a, a + W) had their permits in (a − tolerance, a + W), one window of W + tolerance.
 *
 * <p>
 * Which policies: those with a {@code max-wait} (any of their calls may be held, so every decision of them, waiting or
 * not, counts alike: a key never switches between two windows), whose strategy bounds any interval of W (sliding log,
 * sliding counter, token bucket; not fixed windows nor calendar periods, whose windows are cut by the clock, nor
 * calls in flight; nor policies paced toward an upstream, {@link #margined}). The store sees the wider windows; what it answers
 * names the configured limits again, so headers,
 * problems and logs speak of the policy as configured, and their reset instants are the wider windows' (when the
 * store would admit again).
 */
public final class LateOccupancy extends ForwardingStore {

    private final long toleranceMicros;
    /**
     * Policies paced toward an upstream, whose windows carry {@code slidegate.upstream.margin} already and whose spreading
     * limit (one call per (W + margin) / N) must not grow by a tolerance several times its length: not widened here.
     */
    private final java.util.Set<String> margined = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /**
     * The wider policy made for each policy object lately, by identity: the store below finds what it keeps for a policy
     * by the policy's identity too, so a policy decided again must arrive as the same object.
     */
    private final ByIdentity<Policy, Policy> wider;

    public LateOccupancy(DecisionStore delegate, long toleranceMicros) {
        super(delegate);
        if (toleranceMicros < 0) {
            throw new IllegalArgumentException("a late tolerance is not negative, was " + toleranceMicros + " us");
        }
        this.toleranceMicros = toleranceMicros;
        this.wider = new ByIdentity<>(p -> margined.contains(p.name()) ? p : occupying(p, toleranceMicros));
    }

    /** The tolerance each permit of a waiting policy occupies its window for, beyond the window. */
    public long toleranceMicros() {
        return toleranceMicros;
    }

    /**
     * Says that policy {@code name} paces calls to an upstream: its windows carry the upstream margin, judged where the
     * upstream sees the calls (docs/upstream.md), and are not widened here.
     */
    public void margined(String name) {
        if (!margined.contains(name)) {
            margined.add(name);
        }
    }

    /** {@code policy} as this store counts it. */
    Policy occupying(Policy policy) {
        return toleranceMicros == 0 || policy.maxWaitMicros() == 0 ? policy : wider.get(policy);
    }

    /** Whether {@code policy}'s permits occupy their windows for the tolerance too. */
    public static boolean widens(Policy policy, long toleranceMicros) {
        Strategy s = policy.strategy();
        return toleranceMicros > 0 && policy.maxWaitMicros() > 0
                && (s == Strategy.SLIDING_LOG || s == Strategy.SLIDING_COUNTER || s == Strategy.TOKEN_BUCKET);
    }

    /** {@code policy} as the store counts it: every window of a waiting policy, but calendar ones, widened. */
    public static Policy occupying(Policy policy, long toleranceMicros) {
        if (!widens(policy, toleranceMicros)) {
            return policy;
        }
        List<Limit> wider = new ArrayList<>(policy.limits().size());
        for (Limit l : policy.limits()) {
            wider.add(l.calendar() ? l : new Limit(l.permits(), l.windowMicros() + toleranceMicros));
        }
        return policy.withLimits(wider);
    }

    /**
     * {@code d}, decided under the wider windows, as a decision of {@code configured}: the limits it names are the
     * configured ones again (a decision remembered from an earlier asking names an equal policy; the fail mode's share
     * names the wider windows with its own permits, N/k, narrowed back here).
     */
    Decision configured(Decision d, Policy configured, Policy asked) {
        if (d == null || asked == configured) {
            return d;
        }
        Policy named;
        if (d.policy() == asked || asked.equals(d.policy())) {
            named = configured;
        } else if (d.policy().name().equals(configured.name()) && d.policy().limits().size() == configured.limits().size()) {
            List<Limit> narrowed = new ArrayList<>(configured.limits().size());
            for (Limit l : d.policy().limits()) {
                narrowed.add(l.calendar() ? l : new Limit(l.permits(), Math.max(1_000, l.windowMicros() - toleranceMicros)));
            }
            named = d.policy().withLimits(narrowed);
        } else {
            return d;
        }
        List<LimitState> states = new ArrayList<>(d.states().size());
        for (int i = 0; i < d.states().size(); i++) {
            LimitState s = d.states().get(i);
            states.add(i < named.limits().size() ? new LimitState(named.limits().get(i), s.remaining(), s.resetMicros()) : s);
        }
        return new Decision(named, d.allowed(), d.trippedIndex(), d.retryAfterMicros(), d.atMicros(), states, d.fallback(),
                d.waitMicros());
    }

    @Override
    public CompletionStage<Decision> acquire(Policy policy, String key, int cost, long maxWaitMicros) {
        Policy asked = occupying(policy);
        if (asked == policy) {
            return delegate.acquire(policy, key, cost, maxWaitMicros);
        }
        return delegate.acquire(asked, key, cost, maxWaitMicros).thenApply(d -> configured(d, policy, asked));
    }

    @Override
    public CompletionStage<List<Decision>> acquireAll(List<Asked> asks) {
        List<Asked> occupying = new ArrayList<>(asks.size());
        boolean same = true;
        for (Asked a : asks) {
            Policy asked = occupying(a.policy());
            same &= asked == a.policy();
            occupying.add(asked == a.policy() ? a : new Asked(asked, a.key(), a.cost(), a.maxWaitMicros()));
        }
        if (same) {
            return delegate.acquireAll(asks);
        }
        return delegate.acquireAll(occupying).thenApply(decisions -> {
            List<Decision> named = new ArrayList<>(decisions.size());
            for (int j = 0; j < decisions.size(); j++) {
                int i = Asked.of(asks, decisions, j);
                named.add(configured(decisions.get(j), asks.get(i).policy(), occupying.get(i).policy()));
            }
            return named;
        });
    }

    @Override
    public CompletionStage<Long> settle(Policy policy, String key, long admittedAtMicros, int estimate, long actual) {
        return delegate.settle(occupying(policy), key, admittedAtMicros, estimate, actual);
    }

    @Override
    public CompletionStage<Void> refund(Policy policy, String key, long atMicros, int cost) {
        return delegate.refund(occupying(policy), key, atMicros, cost);
    }

    /** The admin's view of the same windows: a waiting policy's state read as its decisions count it. */
    public StoreInspection inspection(StoreInspection inspection) {
        return toleranceMicros <= 0 ? inspection : new Inspection(inspection, this);
    }

    /** Inspection whose {@code peek} reads a waiting policy's wider windows; the rest goes by name and key alone. */
    private static final class Inspection extends ForwardingInspection {
        private final LateOccupancy late;

        Inspection(StoreInspection delegate, LateOccupancy late) {
            super(delegate);
            this.late = late;
        }

        @Override
        public CompletionStage<Decision> peek(Policy policy, String key) {
            Policy asked = late.occupying(policy);
            if (asked == policy) {
                return delegate.peek(policy, key);
            }
            return delegate.peek(asked, key).thenApply(d -> late.configured(d, policy, asked));
        }
    }
}
