package dev.slidegate.memory;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Limit;
import dev.slidegate.api.LimitState;
import dev.slidegate.api.Policy;

/**
 * The windows of one (policy, key) in process. Subclasses hold the counting state of one strategy;
 * this class holds what all share: the policy as arrays, the monotonic guard, and retirement.
 *
 * <p>
 * All methods that touch state run under the instance's monitor. Each decision names the policy it is
 * made under: when its limits differ from the ones this state counts (an override changed them), the
 * state is carried over to them first ({@link #adopt}), never reset. A state that the store evicted
 * is <em>retired</em>: {@link #decide} then answers {@code null} and the store looks the key up again,
 * so no permit is ever charged to a state that is no longer in the map.
 */
abstract sealed class KeyState permits SlidingLogState, FixedWindowState, SlidingCounterState, TokenBucketState {

    /** The policy counted under; read without the lock by the refusal fast path, hence volatile. */
    protected volatile Policy policy;
    protected int[] permits;
    protected long[] windows;
    /** The newest "now" this key has seen: time never steps backwards for a key. */
    protected long lastMicros = Long.MIN_VALUE;
    private boolean retired;
    /**
     * Until when (exclusive) every call is surely refused: set under the lock after a refusal of cost 1
     * (no call can pass before the refusing limits have room for one permit, and nothing is charged
     * meanwhile), read without the lock, so a caller over its limit is refused without taking the
     * monitor. Never set for count-rejected policies, whose refusals are charged.
     */
    private volatile long refusedUntil = Long.MIN_VALUE;
    // Outputs of computeWaits(), read under the same lock (no allocation per decision).
    protected int tripped;
    protected long retry;

    protected KeyState(Policy policy) {
        this.policy = policy;
        setLimits(policy);
    }

    private void setLimits(Policy p) {
        int n = p.limits().size();
        permits = new int[n];
        windows = new long[n];
        for (int i = 0; i < n; i++) {
            Limit l = p.limits().get(i);
            permits[i] = l.permits();
            windows[i] = l.windowMicros();
        }
    }

    /**
     * Counts under {@code p} from now on. When its limits differ from the ones counted so far, the
     * state is carried over, never reset: a limit keeps what it recorded in a window of the same length
     * (lowering N refuses at once against it, raising N admits at once), a limit with a window not
     * counted before starts empty, and a sliding log keeps its instants, which every window reads.
     */
    private void adopt(Policy p, long now) {
        Policy old = policy;
        if (p == old) {
            return;
        }
        if (!p.limits().equals(old.limits())) {
            int[] oldPermits = permits;
            long[] oldWindows = windows;
            setLimits(p);
            carryOver(oldPermits, oldWindows, p, now);
            refusedUntil = Long.MIN_VALUE; // a raised limit admits at once
        }
        policy = p;
    }

    /** The index of the limit with window {@code window} in {@code windows}, or -1. */
    protected static int sameWindow(long[] windows, long window) {
        for (int j = 0; j < windows.length; j++) {
            if (windows[j] == window) {
                return j;
            }
        }
        return -1;
    }

    /**
     * Carries the counting state over to the limits now in {@link #permits} and {@link #windows} (those
     * of {@code p}) from the old ones, as {@link #adopt} describes.
     */
    protected abstract void carryOver(int[] oldPermits, long[] oldWindows, Policy p, long now);

    /**
     * Decides one call at {@code now}: checks every limit, then charges all of them or none.
     *
     * @return the decision, or {@code null} if this state was retired and the key must be looked up again
     */
    final synchronized Decision decide(Policy p, long now, int cost) {
        if (retired) {
            return null;
        }
        now = observe(now);
        adopt(p, now);
        boolean allowed = admitAndCharge(now, cost);
        LimitState[] states = new LimitState[permits.length];
        for (int i = 0; i < states.length; i++) {
            states[i] = state(i, now);
        }
        return new Decision(policy, allowed, tripped, allowed ? 0 : retry, now, java.util.List.of(states));
    }

    /**
     * The same decision as {@link #decide}, reporting only the outcome, without allocating.
     *
     * @return 1 admitted, 0 refused, -1 retired (look the key up again)
     */
    final int tryAcquire(Policy p, long now, int cost) {
        if (p == policy && now < refusedUntil) { // the policy first: adopt() clears refusedUntil before it sets a new one
            return 0;
        }
        synchronized (this) {
            if (retired) {
                return -1;
            }
            now = observe(now);
            adopt(p, now);
            return admitAndCharge(now, cost) ? 1 : 0;
        }
    }

    /** The instant to decide at: never before one this key has already seen. */
    private long observe(long now) {
        lastMicros = Math.max(now, lastMicros);
        return lastMicros;
    }

    /** Checks every limit, then charges all of them (or, refused, only with count-rejected); sets tripped and retry. */
    private boolean admitAndCharge(long now, int cost) {
        computeWaits(now, cost);
        boolean allowed = tripped < 0;
        if (!allowed && cost == 1 && !policy.countRejected()) {
            refusedUntil = now + retry;
        }
        if (allowed || policy.countRejected()) {
            charge(now, cost);
            if (!allowed) {
                computeWaits(now, cost); // the refused attempt counted: the wait starts from it
            }
        }
        return allowed;
    }

    /** The state at {@code now}, charging nothing (time never steps back here either). */
    final synchronized Decision peek(Policy p, long now) {
        now = Math.max(now, lastMicros);
        adopt(p, now);
        LimitState[] states = new LimitState[permits.length];
        for (int i = 0; i < states.length; i++) {
            states[i] = state(i, now);
        }
        return new Decision(policy, true, -1, 0, now, java.util.List.of(states));
    }

    /** Whether this state still counts anything at {@code now}. */
    final synchronized boolean activeAt(long now) {
        return !retired && !idle(now);
    }

    /** Retires this state if it holds nothing that counts at {@code now}, or unconditionally with {@code force}. */
    final synchronized boolean retire(long now, boolean force) {
        if (!retired && (force || idle(now))) {
            retired = true;
            refusedUntil = Long.MIN_VALUE; // callers must see the retirement and look the key up again
        }
        return retired;
    }

    final synchronized boolean isRetired() {
        return retired;
    }

    /** The newest instant this key was used, for choosing whom to evict. */
    final synchronized long lastUsed() {
        return lastMicros;
    }

    /**
     * Sets {@link #tripped} (-1 when every limit admits {@code cost} at {@code now}) and {@link #retry}
     * (the longest wait among refusing limits).
     */
    private void computeWaits(long now, int cost) {
        tripped = -1;
        retry = 0;
        for (int i = 0; i < permits.length; i++) {
            long wait = cost > permits[i] ? windows[i] : waitFor(i, now, cost);
            if (wait > retry) {
                retry = wait;
                tripped = i;
            }
        }
    }

    /** Microseconds until limit {@code i} admits {@code cost} (≤ 0: admits now); {@code cost ≤ permits[i]}. */
    protected abstract long waitFor(int i, long now, int cost);

    /** Records {@code cost} permits at {@code now} in every limit. */
    protected abstract void charge(long now, int cost);

    /** Limit {@code i} as seen at {@code now}. */
    protected abstract LimitState state(int i, long now);

    /** Whether nothing recorded still counts at {@code now}, so the state can be dropped. */
    protected abstract boolean idle(long now);
}
