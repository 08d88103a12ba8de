package dev.slidegate.memory;

import java.util.Arrays;
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
    private long[] cellSize;
    private long[] cellIndex;
    private long[] counts;
    /** Per limit: the cell index last computed, and that cell's end (exclusive; {@link Long#MIN_VALUE}: none yet). */
    private long[] lastCell;
    private long[] lastCellEnd;
    /**
     * Per limit: the permits counted at cell {@code summedCell} (the cells [k - C, k]) and the oldest of those cells that
     * holds any ({@link Long#MAX_VALUE}: none), kept up to date by {@link #charge} while the cell does not change, so
     * that the calls of one cell add no pass over the cells ({@link Long#MIN_VALUE}: none summed yet).
     */
    private long[] summedCell;
    private long[] summed;
    private long[] summedOldest;

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

    SlidingCounterState(Policy policy) {
        super(policy);
        slots = policy.cells() + 1;
        cellSize = new long[n];
        cellIndex = new long[n * slots];
        counts = new long[n * slots];
        Arrays.fill(cellIndex, Long.MIN_VALUE);
        for (int i = 0; i < n; i++) {
            cellSize[i] = cellSize(windows[i]);
        }
        lastCell = new long[n];
        lastCellEnd = new long[n];
        Arrays.fill(lastCellEnd, Long.MIN_VALUE);
        forgetSums(n);
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

    /** The slot of cell {@code k} of limit 0, made to count that cell. */
    private int slotOf(long k) {
        int slot = (int) (k % slots);
        if (cellIndex[slot] != k) {
            cellIndex[slot] = k;
            counts[slot] = 0;
        }
        return slot;
    }

    @Override
    protected void absorb() {
        Cell c = (Cell) cell;
        if (c != null) {
            cell = null;
            long count = c.getAndSet(CLOSED);
            counts[slotOf(c.index)] = count;
            summedCell[0] = Long.MIN_VALUE; // summed again when next asked
        }
    }

    @Override
    protected void refresh() {
        Cell c = (Cell) cell;
        if (c != null) {
            counts[slotOf(c.index)] = c.get();
            summedCell[0] = Long.MIN_VALUE;
        }
    }

    @Override
    protected void publish() {
        absorb();
        long k = cell(0, lastMicros);
        int slot = (int) (k % slots);
        long own = cellIndex[slot] == k ? counts[slot] : 0;
        long older = 0;
        long oldest = Long.MAX_VALUE;
        for (int c = 0; c < slots; c++) {
            long index = cellIndex[c];
            if (index >= k - (slots - 1) && index < k && counts[c] > 0) {
                older += counts[c];
                oldest = Math.min(oldest, index);
            }
        }
        cell = new Cell(policy, own, k, cellSize[0], slots, permits[0], older, oldest, lastChargeAt());
    }

    /** No window sum is known (new arrays: a peek's copy shares the old ones). */
    private void forgetSums(int limits) {
        summedCell = new long[limits];
        summed = new long[limits];
        summedOldest = new long[limits];
        Arrays.fill(summedCell, Long.MIN_VALUE);
    }

    /** The permits counted by limit {@code j} at cell {@code k}; sets {@code summedOldest[j]}. */
    private long windowSum(int j, long k) {
        if (summedCell[j] == k) {
            return summed[j];
        }
        long from = k - (slots - 1);
        long used = 0;
        long oldest = Long.MAX_VALUE;
        for (int c = j * slots; c < (j + 1) * slots; c++) {
            long index = cellIndex[c];
            if (index >= from && index <= k && counts[c] > 0) {
                used += counts[c];
                oldest = Math.min(oldest, index);
            }
        }
        summedCell[j] = k;
        summed[j] = used;
        summedOldest[j] = oldest;
        return used;
    }

    /** The index of the cell of limit {@code j} that holds {@code now}: {@code now / cellSize[j]}. */
    private long cell(int j, long now) {
        long end = lastCellEnd[j];
        if (now < end && now >= end - cellSize[j]) {
            return lastCell[j];
        }
        long k = now / cellSize[j];
        lastCell[j] = k;
        lastCellEnd[j] = (k + 1) * cellSize[j];
        return k;
    }

    /** The cell size of a window: ceil(W / C). */
    private long cellSize(long window) {
        return (window + slots - 2) / (slots - 1);
    }

    @Override
    protected void rebuild(int[] from, int[] np, long[] nw, long carry, long now) {
        long[] size = new long[from.length];
        long[] index = new long[from.length * slots];
        long[] count = new long[from.length * slots];
        Arrays.fill(index, Long.MIN_VALUE);
        for (int s = 0; s < from.length; s++) {
            int j = from[s];
            size[s] = cellSize(nw[s]);
            if (j >= 0) {
                System.arraycopy(cellIndex, j * slots, index, s * slots, slots);
                System.arraycopy(counts, j * slots, count, s * slots, slots);
            } else if (carry > 0) {
                long k = now / size[s];
                index[s * slots + (int) (k % slots)] = k;
                count[s * slots + (int) (k % slots)] = carry;
            }
        }
        cellSize = size;
        cellIndex = index;
        counts = count;
        lastCell = new long[from.length]; // new arrays: a peek's copy shares the old ones
        lastCellEnd = new long[from.length];
        Arrays.fill(lastCellEnd, Long.MIN_VALUE);
        forgetSums(from.length);
    }

    /** The permits counted at cell {@code k} from cells at or after {@code from}, up to {@code k}. */
    private long sum(int j, long from, long k) {
        long sum = 0;
        for (int c = j * slots; c < (j + 1) * slots; c++) {
            if (cellIndex[c] >= from && cellIndex[c] <= k) {
                sum += counts[c];
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
        int c = slots - 1;
        // the first cell k' >= k at which the cells still counted then ([k' - C, k]) leave room for cost
        if (windowSum(i, k) + cost <= permits[i]) {
            return 0;
        }
        for (long next = k + 1; next <= k + slots; next++) {
            if (sum(i, next - c, k) + cost <= permits[i]) {
                return next * cellSize[i] - now;
            }
        }
        return (k + slots) * cellSize[i] - now; // not reached: by then nothing is counted
    }

    @Override
    protected void charge(long now, int cost) {
        for (int j = 0; j < permits.length; j++) {
            long k = cell(j, now);
            int slot = j * slots + (int) (k % slots);
            if (cellIndex[slot] != k) {
                cellIndex[slot] = k;
                counts[slot] = 0;
            }
            counts[slot] += cost;
            if (summedCell[j] == k) { // cell k is in the window sum at k; the cell it replaced was not
                summed[j] += cost;
                summedOldest[j] = Math.min(summedOldest[j], k);
            }
        }
    }

    @Override
    protected void settleSlots(long now, long at, long delta) {
        for (int j = 0; j < permits.length; j++) {
            long k = at / cellSize[j];
            int slot = j * slots + (int) (k % slots);
            if (cellIndex[slot] == k) {
                counts[slot] = Math.max(0, counts[slot] + delta);
                summedCell[j] = Long.MIN_VALUE; // summed again when next asked
            }
        }
    }

    @Override
    protected void standing(int i, long now) {
        long k = cell(i, now);
        long used = windowSum(i, k);
        long oldest = summedOldest[i];
        left = Math.max(0, permits[i] - used);
        resetIn = used == 0 ? 0 : (oldest + slots) * cellSize[i] - now;
    }
}
