package dev.slidegate.memory;

import dev.slidegate.api.Limit;
import dev.slidegate.api.Policy;

/**
 * GCRA, the token bucket as one number per limit: the theoretical arrival time (TAT). Limit N/W
 * emits one permit every T = ceil(W / N) microseconds and holds at most N. A call of cost c passes
 * iff max(TAT, now) + c·T - now ≤ N·T, and then TAT becomes max(TAT, now) + c·T.
 *
 * <p>
 * A slot is one bucket, N and W alike. A bucket that starts from a carry of c permits has used
 * min(c, N) of them: TAT = now + min(c, N)·T. A kept bucket (not in force) is charged like the others
 * but never drains past empty (TAT ≤ now + N·T): it records what the caller used, not a debt to the
 * limits in force.
 */
final class TokenBucketState extends KeyState {

    private long[] interval;
    private long[] tat;

    TokenBucketState(Policy policy) {
        super(policy);
        interval = new long[n];
        tat = new long[n];
        for (int i = 0; i < n; i++) {
            interval[i] = interval(permits[i], windows[i]);
            tat[i] = Long.MIN_VALUE;
        }
    }

    private static long interval(int permits, long window) {
        return Math.max(1, (window + permits - 1) / permits);
    }

    /** A bucket goes on only as the same bucket: N and W. */
    @Override
    protected boolean counts(int j, Limit l) {
        return windows[j] == l.windowMicros() && permits[j] == l.permits();
    }

    @Override
    protected void rebuild(int[] from, int[] np, long[] nw, long carry, long now) {
        long[] newInterval = new long[from.length];
        long[] newTat = new long[from.length];
        for (int s = 0; s < from.length; s++) {
            int j = from[s];
            newInterval[s] = interval(np[s], nw[s]);
            long used = Math.min(carry, np[s]);
            newTat[s] = j >= 0 ? tat[j] : used == 0 ? Long.MIN_VALUE : now + used * newInterval[s];
        }
        interval = newInterval;
        tat = newTat;
    }

    @Override
    protected long used(int j, long now) {
        long ahead = Math.max(tat[j], now) - now; // how far the bucket is drained, in time
        return (ahead + interval[j] - 1) / interval[j];
    }

    @Override
    protected long waitFor(int i, long now, int cost) {
        long next = Math.max(tat[i], now) + cost * interval[i];
        return next - now - permits[i] * interval[i];
    }

    @Override
    protected void charge(long now, int cost) {
        for (int j = 0; j < permits.length; j++) {
            long next = Math.max(tat[j], now) + cost * interval[j];
            // a kept bucket fills at most to empty, and never drains by being charged (it may be past empty
            // already: count-rejected while it was in force)
            tat[j] = j < n ? next : Math.max(tat[j], Math.min(next, now + permits[j] * interval[j]));
        }
    }

    /** The most debt a settlement puts on a bucket: 2^50 µs (35 years), as {@code settle.lua}. */
    static final long MAX_DEBT = 1L << 50;

    @Override
    protected void settleSlots(long now, long at, long delta) {
        for (int j = 0; j < permits.length; j++) {
            if (delta > 0) {
                long debt = delta > MAX_DEBT / interval[j] ? MAX_DEBT : delta * interval[j];
                tat[j] = Math.max(tat[j], now) + debt;
            } else if (tat[j] > now) { // a refund fills the bucket at most to full
                tat[j] = Math.max(now, tat[j] + delta * interval[j]);
            }
        }
    }

    @Override
    protected void standing(int i, long now) {
        long ahead = Math.max(tat[i], now) - now;
        long used = (ahead + interval[i] - 1) / interval[i];
        left = Math.max(0, permits[i] - used);
        resetIn = ahead == 0 ? 0 : (ahead - 1) % interval[i] + 1;
    }
}
