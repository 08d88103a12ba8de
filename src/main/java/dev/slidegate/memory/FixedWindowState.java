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

    /*
     * Per counter {@code j}, side by side in numbers (one object to read, not three): at {@code 3j} and {@code 3j + 1}
     * the start and end (exclusive) of the window it counts ({@link Long#MIN_VALUE} before its first charge), at
     * {@code 3j + 2} its count.
     */

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

    FixedWindowState(Policy policy, Slots slots) {
        super(policy, slots);
        numbers = new long[3 * n];
        for (int j = 0; j < n; j++) {
            numbers[3 * j] = Long.MIN_VALUE;
            numbers[3 * j + 1] = Long.MIN_VALUE;
        }
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
            numbers[2] = c.getAndSet(CLOSED);
        }
    }

    @Override
    protected void refresh() {
        Cell c = (Cell) cell;
        if (c != null) {
            numbers[2] = c.get();
        }
    }

    @Override
    protected void publish() {
        absorb();
        if (numbers[1] > lastMicros) { // the window counting now: calls until its end can decide from it
            cell = new Cell(policy, numbers[2], numbers[0], numbers[1], permits[0], lastCharge);
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
        long[] next = new long[3 * from.length];
        for (int s = 0; s < from.length; s++) {
            int j = from[s];
            if (j < 0) { // (periods already holds the new slots')
                next[3 * s] = startOf(periods[s], nw[s], now);
                next[3 * s + 1] = endOf(periods[s], nw[s], now);
                next[3 * s + 2] = carry;
            } else {
                System.arraycopy(numbers, 3 * j, next, 3 * s, 3);
            }
        }
        numbers = next;
    }

    /** Whether counter {@code j} counts the window that holds {@code now}. */
    private boolean current(int j, long now) {
        return now < numbers[3 * j + 1] && now >= numbers[3 * j];
    }

    @Override
    protected long used(int j, long now) {
        return current(j, now) ? numbers[3 * j + 2] : 0;
    }

    @Override
    protected long waitFor(int i, long now, int cost) {
        // over the limit only with something counted in the current window, whose end is known
        return used(i, now) + cost > permits[i] ? numbers[3 * i + 1] - now : 0;
    }

    @Override
    protected void charge(long now, int cost) {
        for (int j = 0; j < permits.length; j++) {
            if (!current(j, now)) {
                numbers[3 * j] = startOf(periods[j], windows[j], now);
                numbers[3 * j + 1] = endOf(periods[j], windows[j], now);
                numbers[3 * j + 2] = 0;
            }
            numbers[3 * j + 2] += cost;
        }
    }

    @Override
    protected void settleSlots(long now, long at, long delta) {
        for (int j = 0; j < permits.length; j++) {
            if (current(j, at)) {
                numbers[3 * j + 2] = Math.max(0, numbers[3 * j + 2] + delta);
            }
        }
    }

    @Override
    protected void standing(int i, long now) {
        long used = used(i, now);
        left = Math.max(0, permits[i] - used);
        resetIn = used == 0 ? 0 : numbers[3 * i + 1] - now;
    }
}
