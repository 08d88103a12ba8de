package dev.slidegate.testing;

import java.util.Arrays;

/**
 * The bracket oracle (STYLE.md 6), the one judge of every bound Slidegate claims. The caller stamps
 * each call on its own clock just before it and just after it returns; a grant was decided somewhere in
 * its bracket [before, after]. A window [s, s + W) <em>provably</em> holds a grant only when the whole
 * bracket lies inside it, so a caller descheduled around a call can never fake an overshoot, and a
 * limiter that reports wrong instants can never hide one.
 *
 * <p>
 * Thread safe: many caller threads {@link #add} into one recorder. Stamps are in any one unit
 * (nanoseconds from {@link System#nanoTime()} in process, the load generator's clock over HTTP).
 */
public final class Brackets {

    private long[] before = new long[1024];
    private long[] after = new long[1024];
    private int size;

    /** Records one grant whose decision happened between {@code before} and {@code after}. */
    public synchronized void add(long before, long after) {
        if (after < before) {
            throw new IllegalArgumentException("a bracket ends before it starts: " + before + " > " + after);
        }
        if (size == this.before.length) {
            this.before = Arrays.copyOf(this.before, size * 2);
            this.after = Arrays.copyOf(this.after, size * 2);
        }
        this.before[size] = before;
        this.after[size++] = after;
    }

    /** Adds every grant of {@code other}. */
    public void addAll(Brackets other) {
        long[][] copy;
        synchronized (other) {
            copy = new long[][] { Arrays.copyOf(other.before, other.size), Arrays.copyOf(other.after, other.size) };
        }
        for (int i = 0; i < copy[0].length; i++) {
            add(copy[0][i], copy[1][i]);
        }
    }

    /** Every grant's bracket end (when its answer arrived), in the order recorded. */
    public synchronized long[] afters() {
        return Arrays.copyOf(after, size);
    }

    /**
     * The most grants whose brackets lie wholly in one interval [from + kW, from + (k + 1)W) of the
     * consecutive windows starting at {@code from}: the bound of a fixed window, judged like any other.
     */
    public synchronized int maxProvableInAligned(long from, long window) {
        java.util.Map<Long, Integer> counts = new java.util.HashMap<>();
        for (int i = 0; i < size; i++) {
            long k = Math.floorDiv(before[i] - from, window);
            if (Math.floorDiv(after[i] - from, window) == k) {
                counts.merge(k, 1, Integer::sum);
            }
        }
        return counts.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    }

    /** How many grants were recorded. */
    public synchronized int size() {
        return size;
    }

    /** The most grants whose whole bracket lies in one interval of length {@code window}. */
    public synchronized int maxProvable(long window) {
        return maxProvable(Arrays.copyOf(before, size), Arrays.copyOf(after, size), window);
    }

    /**
     * The most grants whose brackets all lie in one half-open interval [s, s + window): for each
     * candidate start s (some grant's {@code before}: moving s later up to the next start loses
     * nothing), the grants with {@code before >= s} and {@code after < s + window}.
     */
    public static int maxProvable(long[] before, long[] after, long window) {
        int n = before.length;
        long[][] byBefore = new long[n][];
        for (int i = 0; i < n; i++) {
            byBefore[i] = new long[] { before[i], after[i] };
        }
        Arrays.sort(byBefore, (x, y) -> Long.compare(x[0], y[0]));
        int max = 0;
        for (int a = 0; a < n; a++) {
            long end = byBefore[a][0] + window;
            int count = 0;
            for (int b = a; b < n && byBefore[b][0] < end; b++) {
                if (byBefore[b][1] < end) {
                    count++;
                }
            }
            max = Math.max(max, count);
        }
        return max;
    }

    /**
     * The most weight of grants whose brackets all lie in one half-open interval [s, s + window), as
     * {@link #maxProvable(long[], long[], long)} counts them: grant {@code i} weighs {@code weight[i]} (the usage a settled
     * call is held to).
     */
    public static long maxProvableWeight(long[] before, long[] after, long[] weight, long window) {
        int n = before.length;
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (x, y) -> Long.compare(before[x], before[y]));
        long max = 0;
        for (int a = 0; a < n; a++) {
            long end = before[order[a]] + window;
            long sum = 0;
            for (int b = a; b < n && before[order[b]] < end; b++) {
                if (after[order[b]] < end) {
                    sum += weight[order[b]];
                }
            }
            max = Math.max(max, sum);
        }
        return max;
    }
}
