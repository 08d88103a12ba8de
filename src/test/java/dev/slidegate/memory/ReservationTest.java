package dev.slidegate.memory;

import static dev.slidegate.testing.Policies.policy;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Limit;
import dev.slidegate.api.Policy;
import dev.slidegate.api.Strategy;
import dev.slidegate.testing.Brackets;
import dev.slidegate.testing.ManualClock;

/**
 * Calls that wait for their permit (issue 38), judged where the protected code runs: a simulated caller arrives,
 * asks the store with a maximum wait, and runs its call when told to (at once, or after the wait); the test
 * stamps that run instant on its own clock and judges each strategy's bound by those instants, not by what the
 * store says it recorded. {@code MemoryStoreTest} compares every decision with the naive reference too.
 */
class ReservationTest {

    private static final long W = 1_000_000; // 1 s
    private static final int N = 10;

    /** One arrival: when it asked, what it was told, and when it ran (or -1: refused). */
    private record Call(long arrived, Decision decision, long ran) {
    }

    /** Callers offering 3N per W on one key, each willing to wait 2W, for 30 W; arrivals at random instants. */
    private static List<Call> offerThreeTimesTheLimit(MemoryStore store, ManualClock clock, Policy p, long seed) {
        Random random = new Random(seed);
        List<Call> calls = new ArrayList<>();
        long start = clock.nowMicros();
        while (clock.nowMicros() < start + 30 * W) {
            clock.advanceMicros(random.nextInt((int) (2 * W / (3 * N)))); // 3N per W on average
            long arrived = clock.nowMicros();
            Decision d = store.decide(p, "k", 1, 2 * W);
            calls.add(new Call(arrived, d, d.allowed() ? arrived + d.waitMicros() : -1));
        }
        return calls;
    }

    // every strategy: a call is admitted within its max-wait or refused at once with a longer wait; callers of one
    // key run in the order they arrived; and the instants the calls run at keep the strategy's bound
    @ParameterizedTest
    @EnumSource(Strategy.class)
    void waitingCallsRunInArrivalOrderWithinTheBound(Strategy strategy) {
        ManualClock clock = new ManualClock();
        MemoryStore store = new MemoryStore(clock, 100);
        Policy p = policy("w", strategy, false, N + "/1s");
        List<Call> calls = offerThreeTimesTheLimit(store, clock, p, 38);
        Brackets runs = new Brackets();
        long lastRun = Long.MIN_VALUE;
        int waited = 0;
        int refused = 0;
        for (Call c : calls) {
            if (c.ran() < 0) {
                refused++;
                assertTrue(c.decision().retryAfterMicros() > 2 * W,
                        "refused only when the wait would exceed max-wait: " + c.decision());
                continue;
            }
            assertTrue(c.decision().waitMicros() <= 2 * W, c.decision().toString());
            assertEquals(c.ran(), c.decision().atMicros(), "the permit is recorded at the instant the call is told to run");
            assertTrue(c.ran() >= lastRun, "callers of one key run in arrival order");
            lastRun = c.ran();
            waited += c.decision().waits() ? 1 : 0;
            runs.add(c.ran(), c.ran());
        }
        assertTrue(waited > calls.size() / 4, "most admitted calls waited: " + waited + " of " + calls.size());
        assertTrue(refused > calls.size() / 4, "a third of the offer is more than the limit and its waiting room: " + refused);
        long t = Math.max(1, W / N);
        int bound = switch (strategy) {
            case FIXED_WINDOW -> runs.maxProvableInAligned(0, W);
            default -> runs.maxProvable(W);
        };
        int limit = strategy == Strategy.TOKEN_BUCKET ? N + (int) (W / t) : N;
        assertTrue(bound <= limit, strategy + ": " + bound + " calls ran in one window of 1 s, limit " + limit);
        if (strategy != Strategy.TOKEN_BUCKET) {
            assertTrue(runs.maxProvable(W / 2) <= N, "no half window holds more than N either");
        }
    }

    // once callers queue, the limit is used: every whole window after the first two runs at least 95% of N calls
    @ParameterizedTest
    @EnumSource(value = Strategy.class, names = { "SLIDING_LOG", "FIXED_WINDOW", "TOKEN_BUCKET" })
    void aPrimedQueueUsesTheLimit(Strategy strategy) {
        ManualClock clock = new ManualClock();
        MemoryStore store = new MemoryStore(clock, 100);
        Policy p = policy("u", strategy, false, N + "/1s");
        long start = clock.nowMicros();
        List<Call> calls = offerThreeTimesTheLimit(store, clock, p, 7);
        for (long w = 2; w < 28; w++) {
            long from = start + w * W;
            long count = calls.stream().filter(c -> c.ran() >= from && c.ran() < from + W).count();
            assertTrue(count >= Math.ceil(0.95 * N), strategy + ": " + count + " calls ran in window " + w);
        }
    }

    // two limits, all or nothing: a reservation waits for the instant both have room, and both keep their bound
    @ParameterizedTest
    @EnumSource(Strategy.class)
    void aReservationWaitsForEveryLimit(Strategy strategy) {
        ManualClock clock = new ManualClock();
        MemoryStore store = new MemoryStore(clock, 100);
        Policy p = policy("two", strategy, false, "3/100ms", "10/1s");
        Brackets runs = new Brackets();
        Random random = new Random(11);
        for (int i = 0; i < 400; i++) {
            clock.advanceMicros(random.nextInt(40_000));
            long arrived = clock.nowMicros();
            Decision d = store.decide(p, "k", 1 + (random.nextInt(4) == 0 ? 1 : 0), 2 * W);
            if (d.allowed()) {
                runs.add(arrived + d.waitMicros(), arrived + d.waitMicros());
                assertEquals(2, d.states().size());
            }
        }
        if (strategy == Strategy.FIXED_WINDOW) {
            assertTrue(runs.maxProvableInAligned(0, 1_000_000) <= 10 && runs.maxProvableInAligned(0, 100_000) <= 3);
        } else if (strategy != Strategy.TOKEN_BUCKET) {
            // costs of 2 count as one run: the bound on runs is looser than on permits, and still holds
            assertTrue(runs.maxProvable(1_000_000) <= 10, "" + runs.maxProvable(1_000_000));
            assertTrue(runs.maxProvable(100_000) <= 3, "" + runs.maxProvable(100_000));
        }
    }

    // a call that waits holds its place: a call that may not wait is refused while it waits (it would jump the queue),
    // and told to come back when the queue has room
    @ParameterizedTest
    @EnumSource(Strategy.class)
    void aCallThatMayNotWaitDoesNotJumpTheQueue(Strategy strategy) {
        ManualClock clock = new ManualClock();
        MemoryStore store = new MemoryStore(clock, 100);
        Policy p = policy("q", strategy, false, "2/1s");
        assertTrue(store.decide(p, "k", 1).allowed());
        assertTrue(store.decide(p, "k", 1).allowed());
        Decision waiting = store.decide(p, "k", 1, 5 * W);
        assertTrue(waiting.allowed() && waiting.waits(), waiting.toString());
        Decision second = store.decide(p, "k", 1, 5 * W);
        assertTrue(second.allowed() && second.atMicros() >= waiting.atMicros(), second.toString());
        clock.advanceMicros(waiting.waitMicros() - 1);
        Decision impatient = store.decide(p, "k", 1);
        assertFalse(impatient.allowed(), "one microsecond before the first reservation: " + impatient);
        assertTrue(impatient.retryAfterMicros() >= 1, impatient.toString());
        assertFalse(store.tryAcquire(p, "k", 1));
    }

    // a call dearer than a limit can ever admit is refused however long it may wait: nothing is reserved for it
    @ParameterizedTest
    @EnumSource(Strategy.class)
    void aCallDearerThanTheLimitIsNeverReserved(Strategy strategy) {
        ManualClock clock = new ManualClock();
        MemoryStore store = new MemoryStore(clock, 100);
        Policy p = policy("big", strategy, false, "3/1s");
        Decision d = store.decide(p, "k", 4, 60 * W);
        assertFalse(d.allowed(), d.toString());
        assertTrue(store.decide(p, "k", 3).allowed(), "nothing was charged or reserved by the refusal");
    }

    // a key whose calls wait is never evicted, even when nothing it counts has happened yet: eviction would hand the
    // permits it reserved to the next caller
    @ParameterizedTest
    @EnumSource(Strategy.class)
    void aKeyWithWaitingCallsIsNeverEvicted(Strategy strategy) {
        ManualClock clock = new ManualClock();
        MemoryStore store = new MemoryStore(clock, 1);
        Policy p = policy("e", strategy, false, "1/1s");
        assertTrue(store.decide(p, "a", 1).allowed());
        clock.advanceMicros(2 * W); // the first permit has expired (the counter's oldest cell too); the next is reserved ahead
        assertTrue(store.decide(p, "a", 1).allowed());
        Decision reserved = store.decide(p, "a", 1, 3 * W);
        assertTrue(reserved.waits(), reserved.toString());
        clock.advanceMicros(reserved.waitMicros() / 2);
        store.decide(p, "b", 1); // the budget of one key is full: a sweep runs
        Decision again = store.decide(p, "a", 1);
        assertFalse(again.allowed(), "key a still holds its reservation: " + again);
    }

    // maximum waits outside 0 to one day are a caller's mistake, said in a sentence
    @ParameterizedTest
    @EnumSource(value = Strategy.class, names = "SLIDING_LOG")
    void aMaximumWaitOutOfRangeIsRefusedWithASentence(Strategy strategy) {
        MemoryStore store = new MemoryStore(new ManualClock(), 10);
        Policy p = new Policy("m", List.of(Limit.parse("1/1s")), strategy, "ip", false);
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> store.decide(p, "k", 1, -1));
        assertTrue(e.getMessage().contains("between 0 and one day"), e.getMessage());
    }
}
