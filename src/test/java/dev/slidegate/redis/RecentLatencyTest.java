package dev.slidegate.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The longest recent answer time, on a settable clock (periods of 1000). */
class RecentLatencyTest {

    // a long answer is remembered through the rest of its period and the next one, then forgotten;
    // an idle stretch of two periods or more forgets everything
    @Test
    void aLongAnswerIsRememberedForOneToTwoPeriods() {
        RecentLatency r = new RecentLatency(1000, 0);
        assertEquals(0, r.max(0));
        r.record(100, 80);
        r.record(200, 5);
        assertEquals(80, r.max(999));
        r.record(1000, 7); // a new period: the previous one's 80 still counts
        assertEquals(80, r.max(1500));
        assertEquals(7, r.max(2000)); // two periods on: only the 7 of the period before
        assertEquals(0, r.max(3000));
        r.record(3100, 30);
        assertEquals(0, r.max(6000), "an idle stretch of two periods forgets all");
    }
}
