package dev.slidegate.memory;

import dev.slidegate.api.LimitState;
import dev.slidegate.api.Policy;

/**
 * GCRA, the token bucket as one number per limit: the theoretical arrival time (TAT). Limit N/W
 * emits one permit every T = ceil(W / N) microseconds and holds at most N. A call of cost c passes
 * iff max(TAT, now) + c·T - now ≤ N·T, and then TAT becomes max(TAT, now) + c·T.
 */
final class TokenBucketState extends KeyState {

    private final long[] interval;
    private final long[] tat;

    TokenBucketState(Policy policy) {
        super(policy);
        interval = new long[permits.length];
        tat = new long[permits.length];
        for (int i = 0; i < permits.length; i++) {
            interval[i] = Math.max(1, (windows[i] + permits[i] - 1) / permits[i]);
            tat[i] = Long.MIN_VALUE;
        }
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
