package dev.slidegate.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/**
 * Where a store's clock falls on the instance's ({@link PermitInstants}): one quick answer places it to within its round
 * trip, slow answers after it do not widen that, age widens it by the drift two clocks may have, a store clock that was set
 * starts it anew; and whatever the answers' delays and the clocks' drift within the bound, a store's instant is never
 * placed after its true local instant (a held call never runs early) nor before it (lateness never judged too kindly).
 */
@org.junit.jupiter.api.Timeout(30)
class PermitInstantsTest {

    private static final long MS = 1_000_000L;

    private final AtomicLong now = new AtomicLong();
    private final PermitInstants instants = new PermitInstants(now::get);

    @Test
    void aStoreWhoseClockIsNotLearnedPlacesNothing() {
        PermitInstants unknown = PermitInstants.unknown();
        unknown.timed(0, 10 * MS, 5_000);
        assertEquals(Long.MAX_VALUE, unknown.latestNanos(5_000));
        assertEquals(Long.MIN_VALUE, unknown.earliestNanos(5_000));
        assertEquals(Long.MAX_VALUE, instants.latestNanos(5_000), "no answer yet");
        assertEquals(Long.MIN_VALUE, instants.earliestNanos(5_000));
    }

    @Test
    void oneQuickAnswerPlacesTheStoresInstantsToWithinItsRoundTripAndSlowOnesAfterItDoNotWidenThat() {
        // the store's clock is 1 000 000 µs ahead of this instance's: its 1 002 000 µs is this instance's 2 ms
        long ahead = 1_000_000;
        now.set(2 * MS + 200_000);
        instants.timed(2 * MS, 2 * MS + 200_000, ahead + 2_100); // asked at 2 ms, read 0.2 ms later
        long permit = ahead + 500_000; // a permit at 500 ms, this instance's clock
        // within the round trip (0.2 ms), and what two clocks may drift apart until then (500 ppm of 0.5 s: 0.25 ms)
        assertTrue(instants.latestNanos(permit) >= 500 * MS && instants.latestNanos(permit) <= 500 * MS + 460_000,
                () -> "latest " + instants.latestNanos(permit));
        assertTrue(instants.earliestNanos(permit) <= 500 * MS && instants.earliestNanos(permit) >= 500 * MS - 460_000,
                () -> "earliest " + instants.earliestNanos(permit));
        // a reading answered 120 ms after its asking, and a decision of a burst: their round trips say nothing finer
        now.set(200 * MS);
        instants.timed(80 * MS, 200 * MS, ahead + 150_000);
        instants.decided(90 * MS, ahead + 150_000);
        assertTrue(instants.latestNanos(permit) - instants.earliestNanos(permit) < MS,
                "a slow answer does not widen what a quick one said");
    }

    @Test
    void aDecisionBoundsTheStoresClockFromAboveOnly() {
        now.set(10 * MS);
        instants.decided(10 * MS, 1_000_000 + 10_000); // the store reported 10 ms on its clock, asked at 10 ms here
        assertEquals(Long.MAX_VALUE, instants.latestNanos(1_000_000 + 500_000),
                "a decision may report an instant later than the store's time: nothing said of the latest");
        assertTrue(instants.earliestNanos(1_000_000 + 500_000) >= 500 * MS - 300_000
                && instants.earliestNanos(1_000_000 + 500_000) <= 500 * MS,
                () -> "earliest "
                        + instants.earliestNanos(1_000_000 + 500_000));
        // a reading then says the other side; a decision that reads the store's clock behind it (set back) starts anew
        instants.timed(10 * MS, 10 * MS + 100_000, 1_000_000 + 10_000);
        assertTrue(instants.latestNanos(1_000_000 + 500_000) < Long.MAX_VALUE);
        instants.decided(11 * MS, 1_000_000 + 11_000 - 5_000_000); // 5 s back
        assertEquals(Long.MAX_VALUE, instants.latestNanos(0), "the other side is not known any more");
        assertTrue(Math.abs(instants.earliestNanos(1_000_000 - 5_000_000 + 500_000) - 500 * MS) < MS);
    }

    @Test
    void ageWidensTheBoundsByTheDriftTwoClocksMayHave() {
        now.set(MS);
        instants.timed(MS, MS, 1_000); // a round trip of nothing: the offset is 0 to within a tick
        long width = instants.latestNanos(0) - instants.earliestNanos(0);
        now.set(MS + 10_000 * MS); // 10 s later
        long aged = instants.latestNanos(0) - instants.earliestNanos(0);
        // 500 ppm of 10 s is 5 ms, on each side
        assertEquals(width + 10 * MS, aged, 2_000);
    }

    @Test
    void aStoreClockThatWasSetStartsTheBoundsAnew() {
        now.set(MS);
        instants.timed(MS, MS + 100_000, 1_000);
        now.set(2 * MS);
        instants.timed(2 * MS, 2 * MS + 100_000, 2_000 - 3_000_000); // the store's clock set 3 s back
        long permit = 10_000 - 3_000_000;
        assertTrue(Math.abs(instants.latestNanos(permit) - 10 * MS) < MS, () -> "latest " + instants.latestNanos(permit));
        assertTrue(Math.abs(instants.earliestNanos(permit) - 10 * MS) < MS,
                () -> "earliest " + instants.earliestNanos(permit));
    }

    /**
     * The bound's promise: a store whose clock drifts from this instance's by less than 500 ppm, readings of its clock and
     * decisions asked and read with any delays on either side (0 to 200 ms), decisions that report an instant up to
     * 50 ms later than the store's time (a key's newest entry ahead), and a permit placed at any instant ahead: the
     * permit's true instant on this instance's clock lies between the earliest and the latest said.
     */
    @Property(tries = 300)
    void theTrueInstantIsAlwaysWithinTheBounds(@ForAll @LongRange(min = -400, max = 400) long ppm,
            @ForAll @LongRange(min = -2_000_000_000_000L, max = 2_000_000_000_000L) long offsetMicros,
            @ForAll @IntRange(min = 1, max = 200) int answers, @ForAll long seed) {
        // (a jqwik property does not take JUnit's timeout: each try is bounded here)
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(10),
                () -> tryOnce(ppm, offsetMicros, answers, seed));
    }

    private static void tryOnce(long ppm, long offsetMicros, int answers, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        AtomicLong local = new AtomicLong(random.nextLong(-1_000_000 * MS, 1_000_000 * MS));
        long start = local.get();
        PermitInstants placed = new PermitInstants(local::get);
        // the store's clock at this instance's instant t (ns): offset + t, drifting by ppm
        java.util.function.LongUnaryOperator store = t -> offsetMicros + Math.floorDiv(t, 1000)
                + Math.floorDiv((t - start) / 1000 * ppm, 1_000_000);
        for (int i = 0; i < answers; i++) {
            long asked = local.addAndGet(random.nextLong(0, 500 * MS));
            long decided = asked + random.nextLong(0, 200 * MS);
            long read = decided + random.nextLong(0, 200 * MS);
            local.set(read);
            if (random.nextBoolean()) {
                placed.timed(asked, read, store.applyAsLong(decided));
            } else {
                placed.decided(asked, store.applyAsLong(decided) + random.nextLong(0, 50_000));
            }
            long ahead = random.nextLong(0, 10_000 * MS); // a permit up to 10 s ahead
            long permitAt = read + ahead;
            long permit = store.applyAsLong(permitAt);
            assertTrue(placed.latestNanos(permit) >= permitAt - 1_000,
                    () -> "placed after its true instant: " + placed.latestNanos(permit) + " < " + permitAt);
            assertTrue(placed.earliestNanos(permit) <= permitAt + 1_000,
                    () -> "placed before its true instant: " + placed.earliestNanos(permit) + " > " + permitAt);
        }
    }
}
