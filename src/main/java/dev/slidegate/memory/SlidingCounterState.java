package dev.slidegate.memory;

import java.util.concurrent.atomic.AtomicLong;

import dev.slidegate.api.Policy;
import dev.slidegate.core.DecisionBuffer;

/**
 * Counters per cell. Limit N/W with C cells has cells of s = ceil(W / C) microseconds, cell index
 * {@code now / s}, and counts the C + 1 newest cells [k - C, k]: the oldest, partly overlapping cell
 * in full. Every call before an admitted one within W then lies in a counted cell, so no interval of
 * length W holds more than N; the price is that permits in that oldest cell count a little too long.
 * Each slot keeps a ring of C + 1 (cell index, count) entries: O(cells) memory, whatever N. A limit
 * that starts from a carry counts it in its current cell.
 *
 * <p>
 * Each limit also keeps the index and end of the cell it last saw, so that calls within one cell compare instants
 * instead of dividing: a division is paid once per cell, not per call.
 */
final class SlidingCounterState extends KeyState {

    private final int slots; // C + 1 per limit
    /*
     * In {@link #numbers}, per limit j at j * LIM (one object to read instead of nine): its cell size; the index
     * and end (exclusive) of the cell it last saw ({@link Long#MIN_VALUE}: none yet), and that cell's place in the ring;
     * the permits counted at cell SUMMED_CELL (the cells [k - C, k]) and the oldest of those cells that holds any
     * ({@link Long#MAX_VALUE}: none), kept up to date by charge() while the cell does not change, so that the calls of
     * one cell add no pass over the cells ({@link Long#MIN_VALUE}: none summed yet). The place in the ring is kept so that
     * a charge does not divide (k % slots) on every call.
     */
    private static final int SIZE = 0;
    private static final int LAST_CELL = 1;
    private static final int LAST_END = 2;
    private static final int LAST_SLOT = 3;
    private static final int SUMMED_CELL = 4;
    private static final int SUMMED = 5;
    private static final int SUMMED_OLDEST = 6;
    private static final int LIM = 7;
    /*
     * After those of every slot (from ring()), each limit's ring of C + 1 cells: cell c of limit j has its index at
     * ring() + 2 (j slots + c) and its count right after it.
     */

    /**
     * The count of one limit's current cell, open to admissions without the monitor ({@link KeyState#decideAtOnce}).
     * While the cell lasts the other cells counted ([k - C, k - 1]) do not change, so their sum is fixed: a call is
     * admitted iff that sum, the cell's count and its cost are at most N, exactly as {@link #waitFor} decides. Refusals
     * are left to the monitor, which computes their wait from the cells and remembers them; a call after the cell's end
     * takes the monitor too. {@link #CLOSED} once the monitor took the count back.
     */
    private static final class Cell extends AtomicLong {
        private static final long serialVersionUID = 1L;
        final transient Policy policy;
        final long index;
        final long start;
        final long end;
        final int permits;
        /** The permits of the older cells counted, and the oldest of them holding any ({@link Long#MAX_VALUE}: none). */
        final long older;
        final long oldest;
        /** When the permits of the oldest cell holding any (this one, if no older does) stop counting. */
        final long olderLeave;
        final long ownLeave;
        /** No call is placed before this instant (the last charge when the cell opened). */
        final long notBefore;

        Cell(Policy policy, long count, long index, long size, int slots, int permits, long older, long oldest,
                long notBefore) {
            super(count);
            this.policy = policy;
            this.index = index;
            this.start = index * size;
            this.end = start + size;
            this.permits = permits;
            this.older = older;
            this.oldest = oldest;
            this.olderLeave = oldest == Long.MAX_VALUE ? Long.MAX_VALUE : (oldest + slots) * size;
            this.ownLeave = (index + slots) * size;
            this.notBefore = notBefore;
        }
    }

    private static final long CLOSED = -1;

    SlidingCounterState(Policy policy, Slots shared) {
        super(policy, shared);
        slots = policy.cells() + 1;
        numbers = new long[(LIM + 2 * slots) * n];
        for (int i = 0; i < n; i++) {
            numbers[i * LIM + SIZE] = cellSize(windows[i]);
        }
        emptyRing(numbers, n);
        forgetCells(numbers, n);
    }

    /** Where the rings start in {@link #numbers}: after the numbers of every slot. */
    private int ring() {
        return LIM * permits.length;
    }

    /** Marks every cell of the rings of {@code l}, of {@code limits} slots, as counting no cell index yet. */
    private static void emptyRing(long[] l, int limits) {
        for (int c = LIM * limits; c < l.length; c += 2) {
            l[c] = Long.MIN_VALUE;
        }
    }

    /** No last cell and no window sum known for the first {@code limits} limits of {@code l}. */
    private static void forgetCells(long[] l, int limits) {
        for (int j = 0; j < limits; j++) {
            l[j * LIM + LAST_END] = Long.MIN_VALUE;
            l[j * LIM + SUMMED_CELL] = Long.MIN_VALUE;
        }
    }

    @Override
    protected int decideAtOnce(Policy p, long now, int cost, long maxWait, DecisionBuffer out) {
        Cell c = (Cell) cell;
        if (c == null || c.policy != p || now >= c.end || now < c.notBefore) {
            return -1;
        }
        long at = Math.max(now, c.start); // a clock read before the cell began decides in it, as the monitor would
        while (true) {
            long count = c.get();
            if (count == CLOSED || c.older + count + cost > c.permits) { // refusals are the monitor's
                return -1;
            }
            if (c.compareAndSet(count, count + cost)) {
                if (out != null) {
                    out.decided(p, true, -1, 0, at, 0, 1);
                    out.limit(0, c.permits - c.older - count - cost, Math.min(c.olderLeave, c.ownLeave) - at);
                }
                return 1;
            }
        }
    }

    /** The place in {@link #numbers} of cell {@code k} of limit 0, made to count that cell. */
    private int slotOf(long k) {
        int at = ring() + 2 * (int) (k % slots);
        if (numbers[at] != k) {
            numbers[at] = k;
            numbers[at + 1] = 0;
        }
        return at;
    }

    @Override
    protected void absorb() {
        Cell c = (Cell) cell;
        if (c != null) {
            cell = null;
            long count = c.getAndSet(CLOSED);
            numbers[slotOf(c.index) + 1] = count;
            numbers[SUMMED_CELL] = Long.MIN_VALUE; // summed again when next asked
        }
    }

    @Override
    protected void refresh() {
        Cell c = (Cell) cell;
        if (c != null) {
            numbers[slotOf(c.index) + 1] = c.get();
            numbers[SUMMED_CELL] = Long.MIN_VALUE;
        }
    }

    @Override
    protected void publish() {
        absorb();
        long k = cell(0, lastMicros);
        int r = ring();
        int at = r + 2 * (int) (k % slots);
        long own = numbers[at] == k ? numbers[at + 1] : 0;
        long older = 0;
        long oldest = Long.MAX_VALUE;
        for (int c = r; c < r + 2 * slots; c += 2) {
            long index = numbers[c];
            if (index >= k - (slots - 1) && index < k && numbers[c + 1] > 0) {
                older += numbers[c + 1];
                oldest = Math.min(oldest, index);
            }
        }
        cell = new Cell(policy, own, k, numbers[SIZE], slots, permits[0], older, oldest, lastCharge);
    }

    /** The permits counted by limit {@code j} at cell {@code k}; sets its SUMMED_OLDEST. */
    private long windowSum(int j, long k) {
        int l = j * LIM;
        if (numbers[l + SUMMED_CELL] == k) {
            return numbers[l + SUMMED];
        }
        long from = k - (slots - 1);
        long used = 0;
        long oldest = Long.MAX_VALUE;
        int r = ring();
        for (int c = r + 2 * j * slots; c < r + 2 * (j + 1) * slots; c += 2) {
            long index = numbers[c];
            if (index >= from && index <= k && numbers[c + 1] > 0) {
                used += numbers[c + 1];
                oldest = Math.min(oldest, index);
            }
        }
        numbers[l + SUMMED_CELL] = k;
        numbers[l + SUMMED] = used;
        numbers[l + SUMMED_OLDEST] = oldest;
        return used;
    }

    /** The index of the cell of limit {@code j} that holds {@code now}: {@code now / cellSize}. */
    private long cell(int j, long now) {
        int l = j * LIM;
        long end = numbers[l + LAST_END];
        long size = numbers[l + SIZE];
        if (now < end && now >= end - size) {
            return numbers[l + LAST_CELL];
        }
        long k = now / size;
        numbers[l + LAST_CELL] = k;
        numbers[l + LAST_END] = (k + 1) * size;
        numbers[l + LAST_SLOT] = ring() + 2 * (j * slots + (int) (k % slots));
        return k;
    }

    /** The cell size of a window: ceil(W / C). */
    private long cellSize(long window) {
        return (window + slots - 2) / (slots - 1);
    }

    @Override
    protected void rebuild(int[] from, int[] np, long[] nw, long carry, long now) {
        int m = from.length;
        long[] l = new long[(LIM + 2 * slots) * m]; // a new array: a peek's copy shares the old one
        emptyRing(l, m);
        int r = ring();
        for (int s = 0; s < m; s++) {
            int j = from[s];
            long size = cellSize(nw[s]);
            l[s * LIM + SIZE] = size;
            if (j >= 0) {
                System.arraycopy(numbers, r + 2 * j * slots, l, LIM * m + 2 * s * slots, 2 * slots);
            } else if (carry > 0) {
                long k = now / size;
                int at = LIM * m + 2 * (s * slots + (int) (k % slots));
                l[at] = k;
                l[at + 1] = carry;
            }
        }
        forgetCells(l, m);
        numbers = l;
    }

    /** The permits counted at cell {@code k} from cells at or after {@code from}, up to {@code k}. */
    private long sum(int j, long from, long k) {
        long sum = 0;
        int r = ring();
        for (int c = r + 2 * j * slots; c < r + 2 * (j + 1) * slots; c += 2) {
            if (numbers[c] >= from && numbers[c] <= k) {
                sum += numbers[c + 1];
            }
        }
        return sum;
    }

    @Override
    protected long used(int j, long now) {
        return windowSum(j, cell(j, now));
    }

    @Override
    protected long waitFor(int i, long now, int cost) {
        long k = cell(i, now);
        if (windowSum(i, k) + cost <= permits[i]) {
            return 0;
        }
        // the first cell k' > k at which the cells still counted then ([k' - C, k]) leave room for cost
        int c = slots - 1;
        long size = numbers[i * LIM + SIZE];
        for (long next = k + 1; next <= k + slots; next++) {
            if (sum(i, next - c, k) + cost <= permits[i]) {
                return next * size - now;
            }
        }
        return (k + slots) * size - now; // not reached: by then nothing is counted
    }

    @Override
    protected void charge(long now, int cost) {
        for (int j = 0; j < permits.length; j++) {
            long k = cell(j, now);
            int l = j * LIM;
            int at = (int) numbers[l + LAST_SLOT]; // cell() just placed k
            if (numbers[at] != k) {
                numbers[at] = k;
                numbers[at + 1] = 0;
            }
            numbers[at + 1] += cost;
            if (numbers[l + SUMMED_CELL] == k) { // cell k is in the window sum at k; the cell it replaced was not
                numbers[l + SUMMED] += cost;
                numbers[l + SUMMED_OLDEST] = Math.min(numbers[l + SUMMED_OLDEST], k);
            }
        }
    }

    @Override
    protected void settleSlots(long now, long at, long delta) {
        for (int j = 0; j < permits.length; j++) {
            long k = at / numbers[j * LIM + SIZE];
            int c = ring() + 2 * (j * slots + (int) (k % slots));
            if (numbers[c] == k) {
                numbers[c + 1] = Math.max(0, numbers[c + 1] + delta);
                numbers[j * LIM + SUMMED_CELL] = Long.MIN_VALUE; // summed again when next asked
            }
        }
    }

    @Override
    protected void standing(int i, long now) {
        long k = cell(i, now);
        long used = windowSum(i, k);
        long oldest = numbers[i * LIM + SUMMED_OLDEST];
        left = Math.max(0, permits[i] - used);
        resetIn = used == 0 ? 0 : (oldest + slots) * numbers[i * LIM + SIZE] - now;
    }
}
