package dev.slidegate.memory;

import java.util.Arrays;

import dev.slidegate.api.LimitState;
import dev.slidegate.api.Policy;

/**
 * One counter per limit for the current epoch-aligned window ({@code now / W}). A counter belongs to
 * its window index: when the index moves on the count starts again from zero, so nothing is ever
 * "extended".
 */
final class FixedWindowState extends KeyState {

    private long[] windowIndex;
    private long[] counts;

    FixedWindowState(Policy policy) {
        super(policy);
        windowIndex = new long[permits.length];
        Arrays.fill(windowIndex, Long.MIN_VALUE);
        counts = new long[permits.length];
    }

    /** A window of a length counted before keeps its count; a new one starts empty. */
    @Override
    protected void carryOver(int[] oldPermits, long[] oldWindows, Policy p, long now) {
        long[] index = new long[permits.length];
        long[] count = new long[permits.length];
        for (int i = 0; i < permits.length; i++) {
            int j = sameWindow(oldWindows, windows[i]);
            index[i] = j < 0 ? Long.MIN_VALUE : windowIndex[j];
            count[i] = j < 0 ? 0 : counts[j];
        }
        windowIndex = index;
        counts = count;
    }

    private long used(int i, long now) {
        return windowIndex[i] == now / windows[i] ? counts[i] : 0;
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
        for (int i = 0; i < permits.length; i++) {
            long idx = now / windows[i];
            if (windowIndex[i] != idx) {
                windowIndex[i] = idx;
                counts[i] = 0;
            }
            counts[i] += cost;
        }
    }

    @Override
    protected LimitState state(int i, long now) {
        long used = used(i, now);
        return new LimitState(policy.limits().get(i), Math.max(0, permits[i] - used), used == 0 ? 0 : untilWindowEnd(i, now));
    }

    @Override
    protected boolean idle(long now) {
        for (int i = 0; i < permits.length; i++) {
            if (windowIndex[i] == now / windows[i]) {
                return false;
            }
        }
        return true;
    }
}
