package dev.slidegate.memory;

import dev.slidegate.api.LimitState;
import dev.slidegate.api.Policy;

/**
 * Counters per cell. Limit N/W with C cells has cells of s = ceil(W / C) microseconds, cell index
 * {@code now / s}, and counts the C + 1 newest cells [k - C, k]: the oldest, partly overlapping cell
 * in full. Every call before an admitted one within W then lies in a counted cell, so no interval of
 * length W holds more than N; the price is that permits in that oldest cell count a little too long.
 * Each limit keeps a ring of C + 1 (cell index, count) slots: O(cells) memory, whatever N.
 */
final class SlidingCounterState extends KeyState {

    private final int slots; // C + 1 per limit
    private long[] cellSize;
    private long[] cellIndex;
    private long[] counts;

    SlidingCounterState(Policy policy) {
        super(policy);
        slots = policy.cells() + 1;
        cellSize = new long[permits.length];
        cellIndex = new long[permits.length * slots];
        counts = new long[permits.length * slots];
        java.util.Arrays.fill(cellIndex, Long.MIN_VALUE);
        for (int i = 0; i < permits.length; i++) {
            cellSize[i] = cellSize(i);
        }
    }

    /** The cell size of limit {@code i}: ceil(W / C). */
    private long cellSize(int i) {
        return (windows[i] + slots - 2) / (slots - 1);
    }

    /** A window of a length counted before keeps its cells (same length, same cells); a new one starts empty. */
    @Override
    protected void carryOver(int[] oldPermits, long[] oldWindows, Policy p, long now) {
        long[] size = new long[permits.length];
        long[] index = new long[permits.length * slots];
        long[] count = new long[permits.length * slots];
        java.util.Arrays.fill(index, Long.MIN_VALUE);
        for (int i = 0; i < permits.length; i++) {
            size[i] = cellSize(i);
            int j = sameWindow(oldWindows, windows[i]);
            if (j >= 0) {
                System.arraycopy(cellIndex, j * slots, index, i * slots, slots);
                System.arraycopy(counts, j * slots, count, i * slots, slots);
            }
        }
        cellSize = size;
        cellIndex = index;
        counts = count;
    }

    /** The permits counted at cell {@code k} from cells at or after {@code from}, up to {@code k}. */
    private long sum(int i, long from, long k) {
        long sum = 0;
        for (int j = i * slots; j < (i + 1) * slots; j++) {
            if (cellIndex[j] >= from && cellIndex[j] <= k) {
                sum += counts[j];
            }
        }
        return sum;
    }

    @Override
    protected long waitFor(int i, long now, int cost) {
        long k = now / cellSize[i];
        int c = slots - 1;
        // the first cell k' >= k at which the cells still counted then ([k' - C, k]) leave room for cost
        for (long next = k; next <= k + slots; next++) {
            if (sum(i, next - c, k) + cost <= permits[i]) {
                return next == k ? 0 : next * cellSize[i] - now;
            }
        }
        return (k + slots) * cellSize[i] - now; // not reached: by then nothing is counted
    }

    @Override
    protected void charge(long now, int cost) {
        for (int i = 0; i < permits.length; i++) {
            long k = now / cellSize[i];
            int slot = i * slots + (int) (k % slots);
            if (cellIndex[slot] != k) {
                cellIndex[slot] = k;
                counts[slot] = 0;
            }
            counts[slot] += cost;
        }
    }

    @Override
    protected LimitState state(int i, long now) {
        long k = now / cellSize[i];
        long from = k - (slots - 1);
        long used = sum(i, from, k);
        long oldest = Long.MAX_VALUE;
        for (int j = i * slots; j < (i + 1) * slots; j++) {
            if (cellIndex[j] >= from && cellIndex[j] <= k && counts[j] > 0) {
                oldest = Math.min(oldest, cellIndex[j]);
            }
        }
        long reset = used == 0 ? 0 : (oldest + slots) * cellSize[i] - now;
        return new LimitState(policy.limits().get(i), Math.max(0, permits[i] - used), reset);
    }

    @Override
    protected boolean idle(long now) {
        for (int i = 0; i < permits.length; i++) {
            long from = now / cellSize[i] - (slots - 1);
            for (int j = i * slots; j < (i + 1) * slots; j++) {
                if (cellIndex[j] >= from && counts[j] > 0) {
                    return false;
                }
            }
        }
        return true;
    }
}
