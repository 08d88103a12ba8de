package dev.slidegate.memory;

import java.util.concurrent.atomic.AtomicLong;

import dev.slidegate.api.Limit;
import dev.slidegate.api.Policy;
import dev.slidegate.core.DecisionBuffer;

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

    /*
     * Per bucket {@code j}, side by side in numbers (one object to read, not two): at {@code 2j} its interval T, at
     * {@code 2j + 1} its TAT.
     */

    /**
     * The TAT of a bucket open to calls without the monitor ({@link KeyState#decideAtOnce}), with what deciding from it
     * needs; {@link #CLOSED} once the monitor took it back.
     */
    private static final class Cell extends AtomicLong {
        private static final long serialVersionUID = 1L;
        final transient Policy policy;
        final long interval;
        final long capacity;
        final int permits;
        /** No call is placed before this instant (the last charge when the cell opened). */
        final long notBefore;

        Cell(Policy policy, long tat, long interval, int permits, long notBefore) {
            super(tat);
            this.policy = policy;
            this.interval = interval;
            this.capacity = permits * interval;
            this.permits = permits;
            this.notBefore = notBefore;
        }
    }

    private static final long CLOSED = Long.MAX_VALUE;

    TokenBucketState(Policy policy, Slots slots) {
        super(policy, slots);
        numbers = new long[2 * n];
        for (int i = 0; i < n; i++) {
            numbers[2 * i] = interval(permits[i], windows[i]);
            numbers[2 * i + 1] = Long.MIN_VALUE;
        }
    }

    private static long interval(int permits, long window) {
        return Math.max(1, (window + permits - 1) / permits);
    }

    @Override
    protected int decideAtOnce(Policy p, long now, int cost, long maxWait, DecisionBuffer out) {
        Cell c = (Cell) cell;
        if (c == null || c.policy != p || now < c.notBefore || cost > c.permits) {
            return -1;
        }
        long interval = c.interval;
        while (true) {
            long t = c.get();
            if (t == CLOSED) {
                return -1;
            }
            long next = Math.max(t, now) + cost * interval;
            long wait = next - now - c.capacity;
            if (wait > 0) {
                // a reservation, or a refusal to remember on the key: the monitor places or remembers it
                if (wait <= maxWait || cost == 1 && wait > REMEMBERED_REFUSAL_MICROS) {
                    return -1;
                }
                if (out != null) {
                    out.decided(p, false, 0, wait, now, 0, 1);
                    limit(out, t, now, c);
                }
                return 0;
            }
            if (c.compareAndSet(t, next)) {
                if (out != null) {
                    out.decided(p, true, -1, 0, now, 0, 1);
                    limit(out, next, now, c);
                }
                return 1;
            }
        }
    }

    /** Where the bucket of {@code tat} stands at {@code now}, as {@link #standing}. */
    private static void limit(DecisionBuffer out, long tat, long now, Cell c) {
        long ahead = Math.max(tat, now) - now;
        long used = (ahead + c.interval - 1) / c.interval;
        out.limit(0, Math.max(0, c.permits - used), ahead == 0 ? 0 : (ahead - 1) % c.interval + 1);
    }

    @Override
    protected void absorb() {
        Cell c = (Cell) cell;
        if (c != null) {
            cell = null;
            numbers[1] = c.getAndSet(CLOSED);
        }
    }

    @Override
    protected void refresh() {
        Cell c = (Cell) cell;
        if (c != null) {
            numbers[1] = c.get();
        }
    }

    @Override
    protected void publish() {
        absorb();
        cell = new Cell(policy, numbers[1], numbers[0], permits[0], lastCharge);
    }

    /** A bucket goes on only as the same bucket: N and W. */
    @Override
    protected boolean counts(int j, Limit l) {
        return windows[j] == l.windowMicros() && permits[j] == l.permits();
    }

    @Override
    protected void rebuild(int[] from, int[] np, long[] nw, long carry, long now) {
        long[] next = new long[2 * from.length];
        for (int s = 0; s < from.length; s++) {
            int j = from[s];
            long interval = interval(np[s], nw[s]);
            long used = Math.min(carry, np[s]);
            next[2 * s] = interval;
            next[2 * s + 1] = j >= 0 ? numbers[2 * j + 1] : used == 0 ? Long.MIN_VALUE : now + used * interval;
        }
        numbers = next;
    }

    @Override
    protected long used(int j, long now) {
        long ahead = Math.max(numbers[2 * j + 1], now) - now; // how far the bucket is drained, in time
        return (ahead + numbers[2 * j] - 1) / numbers[2 * j];
    }

    @Override
    protected long waitFor(int i, long now, int cost) {
        long next = Math.max(numbers[2 * i + 1], now) + cost * numbers[2 * i];
        return next - now - permits[i] * numbers[2 * i];
    }

    @Override
    protected void charge(long now, int cost) {
        for (int j = 0; j < permits.length; j++) {
            long next = Math.max(numbers[2 * j + 1], now) + cost * numbers[2 * j];
            // a kept bucket fills at most to empty, and never drains by being charged (it may be past empty
            // already: count-rejected while it was in force)
            numbers[2 * j + 1] = j < n ? next : Math.max(numbers[2 * j + 1], Math.min(next, now + permits[j] * numbers[2 * j]));
        }
    }

    /** The most debt a settlement puts on a bucket: 2^50 µs (35 years), as {@code settle.lua}. */
    static final long MAX_DEBT = 1L << 50;

    @Override
    protected void settleSlots(long now, long at, long delta) {
        for (int j = 0; j < permits.length; j++) {
            if (delta > 0) {
                long debt = delta > MAX_DEBT / numbers[2 * j] ? MAX_DEBT : delta * numbers[2 * j];
                numbers[2 * j + 1] = Math.max(numbers[2 * j + 1], now) + debt;
            } else if (numbers[2 * j + 1] > now) { // a refund fills the bucket at most to full
                numbers[2 * j + 1] = Math.max(now, numbers[2 * j + 1] + delta * numbers[2 * j]);
            }
        }
    }

    @Override
    protected void standing(int i, long now) {
        long ahead = Math.max(numbers[2 * i + 1], now) - now;
        long used = (ahead + numbers[2 * i] - 1) / numbers[2 * i];
        left = Math.max(0, permits[i] - used);
        resetIn = ahead == 0 ? 0 : (ahead - 1) % numbers[2 * i] + 1;
    }
}
