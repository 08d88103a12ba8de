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

    /**
     * How many of the {@code refused} calls no limit of {@code n} per {@code lookback} could have refused: fewer than
     * {@code n} of these grants can have been decided in the {@code lookback} before any instant of the refusal's
     * bracket (a grant counts when its bracket reaches into (r.before - lookback, r.after]). A limiter that refuses
     * more than its limit asks for is over-cautious, whatever the load offered or the machine's speed; a positive count
     * proves it.
     */
    public int unjustified(Brackets refused, int n, long lookback) {
        long[][] g;
        long[][] r;
        synchronized (this) {
            g = new long[][] { Arrays.copyOf(before, size), Arrays.copyOf(after, size) };
        }
        synchronized (refused) {
            r = new long[][] { Arrays.copyOf(refused.before, refused.size), Arrays.copyOf(refused.after, refused.size) };
        }
        int count = 0;
        for (int i = 0; i < r[0].length; i++) {
            int possible = 0;
            for (int j = 0; j < g[0].length && possible < n; j++) {
                if (g[0][j] <= r[1][i] && g[1][j] > r[0][i] - lookback) {
                    possible++;
                }
            }
            if (possible < n) {
                count++;
            }
        }
        return count;
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
        long[] ones = new long[before.length];
        Arrays.fill(ones, 1);
        return (int) maxProvableWeight(before, after, ones, window);
    }

    /**
     * The most weight of grants whose brackets all lie in one half-open interval [s, s + window), as
     * {@link #maxProvable(long[], long[], long)} counts them: grant {@code i} weighs {@code weight[i]} (the usage a settled
     * call is held to). O(n log n) (issue 56: the quadratic count took 13 minutes when a mutation admitted without bound):
     * the candidate starts in order of {@code before}, the grants that began in [s, s + window) kept in a Fenwick tree
     * by their {@code after}, summed below s + window.
     */
    public static long maxProvableWeight(long[] before, long[] after, long[] weight, long window) {
        int n = before.length;
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (x, y) -> Long.compare(before[x], before[y]));
        long[] afters = Arrays.copyOf(after, n);
        Arrays.sort(afters);
        long[] tree = new long[n + 1];
        long max = 0;
        int hi = 0;
        for (int a = 0; a < n; a++) {
            long end = before[order[a]] + window;
            for (; hi < n && before[order[hi]] < end; hi++) {
                add(tree, rank(afters, after[order[hi]]), weight[order[hi]]);
            }
            max = Math.max(max, sum(tree, rank(afters, end))); // the grants in [a, hi) that ended before the end
            add(tree, rank(afters, after[order[a]]), -weight[order[a]]);
        }
        return max;
    }

    /** How many of the sorted {@code values} are below {@code x}. */
    private static int rank(long[] values, long x) {
        int lo = 0;
        int hi = values.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (values[mid] < x) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** Adds {@code w} at position {@code i} (0-based) of the Fenwick tree. */
    private static void add(long[] tree, int i, long w) {
        for (int j = i + 1; j < tree.length; j += j & -j) {
            tree[j] += w;
        }
    }

    /** The sum of positions 0 to {@code count - 1}. */
    private static long sum(long[] tree, int count) {
        long total = 0;
        for (int j = count; j > 0; j -= j & -j) {
            total += tree[j];
        }
        return total;
    }
}
