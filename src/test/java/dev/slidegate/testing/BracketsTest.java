package dev.slidegate.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;

import org.junit.jupiter.api.Test;

/**
 * The window oracle every exactness test judges by: its O(n log n) count agrees with the plain definition (every
 * candidate start, every grant) on random timelines, and answers at once for a limiter that admitted everything in one
 * window (the quadratic count took 13 minutes there).
 */
class BracketsTest {

    /** The definition, counted the slow way. */
    private static long reference(long[] before, long[] after, long[] weight, long window) {
        long max = 0;
        for (long s : before) {
            long sum = 0;
            for (int b = 0; b < before.length; b++) {
                if (before[b] >= s && after[b] < s + window) {
                    sum += weight[b];
                }
            }
            max = Math.max(max, sum);
        }
        return max;
    }

    @Test
    void agreesWithTheDefinitionOnRandomTimelines() {
        Random random = new Random(56);
        for (int round = 0; round < 2_000; round++) {
            int n = random.nextInt(40);
            long[] before = new long[n];
            long[] after = new long[n];
            long[] weight = new long[n];
            long[] ones = new long[n];
            for (int i = 0; i < n; i++) {
                before[i] = random.nextInt(100);
                after[i] = before[i] + (random.nextInt(4) == 0 ? 0 : random.nextInt(30));
                weight[i] = 1 + random.nextInt(50);
                ones[i] = 1;
            }
            long window = 1 + random.nextInt(60);
            assertEquals(reference(before, after, weight, window), Brackets.maxProvableWeight(before, after, weight, window),
                    "round " + round);
            assertEquals(reference(before, after, ones, window), Brackets.maxProvable(before, after, window), "round " + round);
        }
    }

    @Test
    void aLimiterThatAdmittedEverythingIsCountedAtOnce() {
        int n = 300_000;
        long[] before = new long[n];
        long[] after = new long[n];
        for (int i = 0; i < n; i++) {
            before[i] = i;
            after[i] = i + 10;
        }
        assertEquals(n, Brackets.maxProvable(before, after, 1_000_000));
    }
}
