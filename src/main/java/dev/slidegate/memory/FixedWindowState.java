package dev.slidegate.memory;

import dev.slidegate.api.LimitState;
import dev.slidegate.api.Policy;

/**
 * One counter per slot for its current epoch-aligned window ({@code now / W}). A counter belongs to
 * its window index: when the index moves on the count starts again from zero, so nothing is ever
 * "extended". A limit that starts from a carry counts it in its current window.
 */
final class FixedWindowState extends KeyState {

    private long[] windowIndex;
    private long[] counts;

    FixedWindowState(Policy policy) {
        super(policy);
        windowIndex = new long[n];
        java.util.Arrays.fill(windowIndex, Long.MIN_VALUE);
        counts = new long[n];
    }

    @Override
    protected void rebuild(int[] from, int[] np, long[] nw, long carry, long now) {
        long[] index = new long[from.length];
        long[] count = new long[from.length];
        for (int s = 0; s < from.length; s++) {
            int j = from[s];
            index[s] = j < 0 ? now / nw[s] : windowIndex[j];
            count[s] = j < 0 ? carry : counts[j];
        }
        windowIndex = index;
        counts = count;
    }

    @Override
    protected long used(int j, long now) {
        return windowIndex[j] == now / windows[j] ? counts[j] : 0;
    }

    private long untilWindowEnd(int i, long now) {
        return (now / windows[i] + 1) * windows[i] - now;
    }

    @Override
    protected long waitFor(int i, long now, int cost) {
        return used(i, now) + cost > permits[i] ? untilWindowEnd(i, now) : 0;
    }

    @Override
    protected void charge(long now, int cost) {
        for (int j = 0; j < permits.length; j++) {
            long idx = now / windows[j];
            if (windowIndex[j] != idx) {
                windowIndex[j] = idx;
                counts[j] = 0;
            }
            counts[j] += cost;
        }
    }

    @Override
    protected LimitState state(int i, long now) {
        long used = used(i, now);
        return new LimitState(limit(i), Math.max(0, permits[i] - used), used == 0 ? 0 : untilWindowEnd(i, now));
    }
}
