package dev.slidegate.memory;

import java.util.concurrent.atomic.AtomicLong;

import dev.slidegate.api.Periods;
import dev.slidegate.api.Policy;
import dev.slidegate.core.DecisionBuffer;

/**
 * One counter per slot for its current epoch-aligned window ({@code now / W}). A counter belongs to
 * its window: when the window moves on the count starts again from zero, so nothing is ever
 * "extended". A limit that starts from a carry counts it in its current window.
 *
 * <p>
 * Each counter keeps the end of its window ({@code (now / W + 1) * W}, exclusive), so that a decision inside
 * the window compares instants instead of dividing: a division is paid once per window, not per call.
 */
final class FixedWindowState extends KeyState {

    /** The start and end (exclusive) of the window each counter counts; {@link Long#MIN_VALUE} before its first charge. */
    private long[] windowStart;
    private long[] windowEnd;
    private long[] counts;

    /**
     * The count of the current window, open to calls without the monitor ({@link KeyState#decideAtOnce}), with the
     * window it counts; {@link #CLOSED} once the monitor took it back. A call after the window's end takes the monitor,
     * which starts the next window and opens a cell for it.
     */
    private static final class Cell extends AtomicLong {
        private static final long serialVersionUID = 1L;
        final transient Policy policy;
        final long start;
        final long end;
        final int permits;
        /** No call is placed before this instant (the last charge when the cell opened). */
        final long notBefore;

        Cell(Policy policy, long count, long start, long end, int permits, long notBefore) {
            super(count);
            this.policy = policy;
            this.start = start;
            this.end = end;
            this.permits = permits;
            this.notBefore = notBefore;
        }
    }

    private static final long CLOSED = -1;

    FixedWindowState(Policy policy) {
        super(policy);
        windowStart = new long[n];
        windowEnd = new long[n];
        java.util.Arrays.fill(windowStart, Long.MIN_VALUE);
        java.util.Arrays.fill(windowEnd, Long.MIN_VALUE);
        counts = new long[n];
    }

    @Override
    protected int decideAtOnce(Policy p, long now, int cost, long maxWait, DecisionBuffer out) {
        Cell c = (Cell) cell;
        if (c == null || c.policy != p || now >= c.end || now < c.notBefore || cost > c.permits) {
            return -1;
        }
        long at = Math.max(now, c.start); // a clock read before the window began decides in it, as the monitor would
        while (true) {
            long count = c.get();
            if (count == CLOSED) {
                return -1;
            }
            if (count + cost > c.permits) {
                long wait = c.end - at;
                // a reservation, or a refusal to remember on the key: the monitor places or remembers it
                if (wait <= maxWait || cost == 1 && wait > REMEMBERED_REFUSAL_MICROS) {
                    return -1;
                }
                if (out != null) {
                    out.decided(p, false, 0, wait, at, 0, 1);
                    out.limit(0, Math.max(0, c.permits - count), count == 0 ? 0 : wait);
                }
                return 0;
            }
            if (c.compareAndSet(count, count + cost)) {
                if (out != null) {
                    out.decided(p, true, -1, 0, at, 0, 1);
                    out.limit(0, c.permits - count - cost, c.end - at);
                }
                return 1;
            }
        }
    }

    @Override
    protected void absorb() {
        Cell c = (Cell) cell;
        if (c != null) {
            cell = null;
            counts[0] = c.getAndSet(CLOSED);
        }
    }

    @Override
    protected void refresh() {
        Cell c = (Cell) cell;
        if (c != null) {
            counts[0] = c.get();
        }
    }

    @Override
    protected void publish() {
        absorb();
        if (windowEnd[0] > lastMicros) { // the window counting now: calls until its end can decide from it
            cell = new Cell(policy, counts[0], windowStart[0], windowEnd[0], permits[0], lastChargeAt());
        }
    }

    /** The start of the window of length {@code w} or period of {@code p} (when not null) that holds {@code now}. */
    private static long startOf(Periods p, long w, long now) {
        return p != null ? p.startOf(now) : now / w * w;
    }

    /** The end (exclusive) of that window: epoch-aligned, or its period's. */
    private static long endOf(Periods p, long w, long now) {
        return p != null ? p.endOf(now) : (now / w + 1) * w;
    }

    @Override
    protected void rebuild(int[] from, int[] np, long[] nw, long carry, long now) {
        long[] start = new long[from.length];
        long[] end = new long[from.length];
        long[] count = new long[from.length];
        for (int s = 0; s < from.length; s++) {
            int j = from[s];
            if (j < 0) { // (periods already holds the new slots')
                start[s] = startOf(periods[s], nw[s], now);
                end[s] = endOf(periods[s], nw[s], now);
            } else {
                start[s] = windowStart[j];
                end[s] = windowEnd[j];
            }
            count[s] = j < 0 ? carry : counts[j];
        }
        windowStart = start;
        windowEnd = end;
        counts = count;
    }

    /** Whether counter {@code j} counts the window that holds {@code now}. */
    private boolean current(int j, long now) {
        return now < windowEnd[j] && now >= windowStart[j];
    }

    @Override
    protected long used(int j, long now) {
        return current(j, now) ? counts[j] : 0;
    }

    @Override
    protected long waitFor(int i, long now, int cost) {
        // over the limit only with something counted in the current window, whose end is known
        return used(i, now) + cost > permits[i] ? windowEnd[i] - now : 0;
    }

    @Override
    protected void charge(long now, int cost) {
        for (int j = 0; j < permits.length; j++) {
            if (!current(j, now)) {
                windowStart[j] = startOf(periods[j], windows[j], now);
                windowEnd[j] = endOf(periods[j], windows[j], now);
                counts[j] = 0;
            }
            counts[j] += cost;
        }
    }

    @Override
    protected void settleSlots(long now, long at, long delta) {
        for (int j = 0; j < permits.length; j++) {
            if (current(j, at)) {
                counts[j] = Math.max(0, counts[j] + delta);
            }
        }
    }

    @Override
    protected void standing(int i, long now) {
        long used = used(i, now);
        left = Math.max(0, permits[i] - used);
        resetIn = used == 0 ? 0 : windowEnd[i] - now;
    }
}
