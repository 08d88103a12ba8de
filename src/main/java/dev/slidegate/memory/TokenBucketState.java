package dev.slidegate.memory;

import dev.slidegate.api.LimitState;
import dev.slidegate.api.Policy;

/**
 * GCRA, the token bucket as one number per limit: the theoretical arrival time (TAT). Limit N/W
 * emits one permit every T = ceil(W / N) microseconds and holds at most N. A call of cost c passes
 * iff max(TAT, now) + c·T - now ≤ N·T, and then TAT becomes max(TAT, now) + c·T.
 */
final class TokenBucketState extends KeyState {

    private long[] interval;
    private long[] tat;

    TokenBucketState(Policy policy) {
        super(policy);
        interval = new long[permits.length];
        tat = new long[permits.length];
        for (int i = 0; i < permits.length; i++) {
            interval[i] = interval(i);
            tat[i] = Long.MIN_VALUE;
        }
    }

    private long interval(int i) {
        return Math.max(1, (windows[i] + permits[i] - 1) / permits[i]);
    }

    /**
     * A limit of the same window keeps the permits it has used (whole permits, rounded up, at most the
     * new N), which then drain at the new rate; a new window starts full. An unchanged limit keeps its
     * TAT as it is.
     */
    @Override
    protected void carryOver(int[] oldPermits, long[] oldWindows, Policy p, long now) {
        long[] newInterval = new long[permits.length];
        long[] newTat = new long[permits.length];
        for (int i = 0; i < permits.length; i++) {
            newInterval[i] = interval(i);
            int j = sameWindow(oldWindows, windows[i]);
            if (j < 0) {
                newTat[i] = Long.MIN_VALUE;
            } else if (oldPermits[j] == permits[i]) {
                newTat[i] = tat[j];
            } else {
                long ahead = Math.max(tat[j], now) - now;
                long used = (ahead + interval[j] - 1) / interval[j];
                newTat[i] = used == 0 ? Long.MIN_VALUE : now + Math.min(used, permits[i]) * newInterval[i];
            }
        }
        interval = newInterval;
        tat = newTat;
    }

    @Override
    protected long waitFor(int i, long now, int cost) {
        long next = Math.max(tat[i], now) + cost * interval[i];
        return next - now - permits[i] * interval[i];
    }

    @Override
    protected void charge(long now, int cost) {
        for (int i = 0; i < permits.length; i++) {
            tat[i] = Math.max(tat[i], now) + cost * interval[i];
        }
    }

    @Override
    protected LimitState state(int i, long now) {
        long ahead = Math.max(tat[i], now) - now; // how far the bucket is drained, in time
        long used = (ahead + interval[i] - 1) / interval[i];
        long reset = ahead == 0 ? 0 : (ahead - 1) % interval[i] + 1;
        return new LimitState(policy.limits().get(i), Math.max(0, permits[i] - used), reset);
    }

    @Override
    protected boolean idle(long now) {
        for (long t : tat) {
            if (t > now) {
                return false;
            }
        }
        return true;
    }
}
