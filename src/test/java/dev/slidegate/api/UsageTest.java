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

    // issue 60: tokens in and out, for policies that limit each apart (input-limits, output-limits)
    @Test
    void tokensInAndOutAreReportedAndAddedApartAndInAll() {
        Usage u = new Usage();
        assertEquals(-1, u.reportedInput());
        assertEquals(-1, u.reportedOutput());
        u.reportTokens(10, 4);
        assertEquals(10, u.reportedInput());
        assertEquals(4, u.reportedOutput());
        assertEquals(14, u.reported(), "in all their sum");
        u.addTokens(3, 2); // a further call of the same request
        assertEquals(13, u.reportedInput());
        assertEquals(6, u.reportedOutput());
        assertEquals(19, u.reported());
        u.report(25); // a total beyond the parts (reasoning tokens): the parts stay as said
        assertEquals(25, u.reported());
        assertEquals(13, u.reportedInput());
        assertThrows(IllegalArgumentException.class, () -> u.addTokens(-1, 5));
        assertThrows(IllegalArgumentException.class, () -> u.reportTokens(Usage.MAX, 1));
        assertEquals(13, u.reportedInput(), "a refused amount changes nothing");
        assertEquals(25, u.reported());
    }
}
