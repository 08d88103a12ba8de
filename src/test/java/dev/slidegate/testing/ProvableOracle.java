package dev.slidegate.testing;

import java.util.Arrays;
import java.util.Comparator;

/**
 * The accuracy oracle on a load generator's own clock. A call admitted between sending it at {@code s}
 * and receiving the answer at {@code r} was decided at some instant in [s, r]. A set of calls
 * provably lies within an interval of length W when max(r) - min(s) < W; this returns the largest such
 * set, so network delays can never make it report a violation that did not happen.
 */
public final class ProvableOracle {

    private ProvableOracle() {
    }

    /** The most calls that provably lie in one interval of length {@code window} (same unit as the times). */
    public static int maxProvablyWithin(long[] sent, long[] received, long window) {
        int n = sent.length;
        Integer[] bySent = new Integer[n];
        for (int i = 0; i < n; i++) {
            bySent[i] = i;
        }
        Arrays.sort(bySent, Comparator.comparingLong(i -> sent[i]));
        int max = 0;
        for (int a = 0; a < n; a++) {
            long start = sent[bySent[a]];
            int count = 0;
            for (int b = a; b < n && sent[bySent[b]] < start + window; b++) {
                if (received[bySent[b]] < start + window) {
                    count++;
                }
            }
            max = Math.max(max, count);
        }
        return max;
    }
}
