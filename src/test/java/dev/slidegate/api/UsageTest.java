package dev.slidegate.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * What a settled call reports (issue 56): a negative or absurd amount is refused with a sentence and changes nothing
 * reported before, so code that reports a bad value can never lower what its call is charged; sums saturate.
 */
class UsageTest {

    @Test
    void negativeAndAbsurdAmountsAreRefusedAndChangeNothing() {
        Usage u = new Usage();
        assertEquals(-1, u.reported(), "nothing reported yet");
        for (long bad : new long[] { -1, Long.MIN_VALUE, Usage.MAX + 1, Long.MAX_VALUE }) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> u.report(bad));
            assertTrue(e.getMessage().contains("a usage is 0 to " + Usage.MAX + ", not " + bad), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> u.add(bad));
            assertEquals(-1, u.reported(), "still nothing reported after " + bad);
        }
        u.report(500);
        assertThrows(IllegalArgumentException.class, () -> u.add(-400));
        assertThrows(IllegalArgumentException.class, () -> u.report(-1));
        assertEquals(500, u.reported(), "a refused amount does not lower what was reported");
    }

    @Test
    void reportReplacesAddSumsAndSaturates() {
        Usage u = new Usage();
        u.add(0);
        assertEquals(0, u.reported(), "zero is a report");
        u.add(7);
        u.add(5);
        assertEquals(12, u.reported());
        u.report(3);
        assertEquals(3, u.reported(), "a report replaces what was added");
        u.add(Usage.MAX);
        u.add(Usage.MAX);
        assertEquals(Usage.MAX, u.reported(), "sums stop at the most a call is settled at");
    }
}
