package dev.slidegate.testing;

import java.util.Arrays;

/**
 * The accuracy oracle: given the instant of every admitted permit, the most that lie in any
 * half-open interval [t, t + W), found by sliding a W-wide window over the sorted instants.
 */
public final class Oracle {

    private Oracle() {
    }

    /** The maximum number of {@code instants} in any interval of length {@code windowMicros}. */
    public static int maxInAnyWindow(long[] instants, long windowMicros) {
        long[] t = instants.clone();
        Arrays.sort(t);
        int max = 0;
        int lo = 0;
        for (int hi = 0; hi < t.length; hi++) {
            while (t[hi] - t[lo] >= windowMicros) {
                lo++;
            }
            max = Math.max(max, hi - lo + 1);
        }
        return max;
    }

    /** Admitted permits per consecutive window [from + kW, from + (k+1)W), for k = 0 .. windows-1. */
    public static int[] perWindow(long[] instants, long from, long windowMicros, int windows) {
        int[] counts = new int[windows];
        for (long t : instants) {
            long k = Math.floorDiv(t - from, windowMicros);
            if (k >= 0 && k < windows) {
                counts[(int) k]++;
            }
        }
        return counts;
    }
}
