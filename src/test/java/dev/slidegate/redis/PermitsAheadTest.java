package dev.slidegate.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Limit;
import dev.slidegate.api.Policy;
import dev.slidegate.api.Strategy;
import dev.slidegate.core.PermitsAhead.Taken;
import dev.slidegate.testing.RedisClients;
import dev.slidegate.testing.RedisServer;
import dev.slidegate.testing.Resp;

/**
 * Permits taken ahead on a sliding log ({@code sliding_log.lua}, ARGV[1] {@code a...}): a batch counts from the instant it
 * was taken to the last instant it may be used at plus the window, calls after it keep their order and their own
 * instants, and what is given back is free at once. The clock is moved ahead (the scripts read the server's time plus
 * the distance), never slept through.
 */
@Timeout(60)
class PermitsAheadTest {

    private static final long W = 1_000_000; // 1 s
    private static final long USABLE = 50_000; // 50 ms
    /** The key {@link #takeAt} took its batch of. */
    private static String keyOf;

    private static RedisServer server;
    private static RedisClients clients;
    private static final AtomicLong ahead = new AtomicLong();
    private static RedisStore store;

    @BeforeAll
    static void start() {
        server = RedisServer.start();
        clients = new RedisClients(server);
        store = new RedisStore(clients.dataSource(), RedisNodes.single(clients.dataSource()),
                RedisStore.Options.of(Duration.ofSeconds(5)).withClock(new dev.slidegate.testing.MovedClock(ahead)));
    }

    @AfterAll
    static void stop() {
        store.close();
        clients.close();
        server.close();
    }

    private static Policy log(String name, String limits) {
        return new Policy(name, java.util.Arrays.stream(limits.split(",")).map(Limit::parse).toList(), Strategy.SLIDING_LOG,
                "ip", false);
    }

    private static String key() {
        return "k" + System.nanoTime();
    }

    private static Taken take(Policy p, String key, int cost, int most) {
        return store.takeAhead(p, key, cost, most, USABLE).toCompletableFuture().join();
    }

    private static boolean admitted(Policy p, String key) {
        return store.acquire(p, key, 1).toCompletableFuture().join().allowed();
    }

    private static int admittedOf(Policy p, String key, int tries) {
        int n = 0;
        for (int i = 0; i < tries; i++) {
            n += admitted(p, key) ? 1 : 0;
        }
        return n;
    }

    @Test
    void aBatchCountsUntilItsLastUseInstantPlusTheWindow() {
        Policy p = log("ahead-window", "10/1s");
        String k = key();
        Taken t = take(p, k, 1, 4);
        assertTrue(t.decision().allowed(), t.toString());
        assertEquals(4, t.permits());
        assertEquals(t.takenAtMicros() + USABLE, t.lastUseMicros());
        assertEquals(6, t.decision().states().get(0).remaining(), "the whole batch is charged: " + t);
        assertEquals(6, admittedOf(p, k, 8), "the ordinary calls get what the batch left");
        // one window later (and a little) the ordinary permits are free, the batch's still count: it may have been used
        // at its last instant, which a window from there still holds
        ahead.addAndGet(W + 10_000);
        assertEquals(6, admittedOf(p, k, 8));
        ahead.addAndGet(USABLE);
        assertEquals(4, admittedOf(p, k, 8), "past its last use instant and a window, the batch frees");
    }

    @Test
    void aBatchTakesWhatEveryLimitHasRoomForAndNoLessThanTheCallsCost() {
        Policy p = log("ahead-room", "10/1s,12/1m");
        String k = key();
        assertEquals(7, admittedOf(p, k, 7));
        Taken t = take(p, k, 1, 5);
        assertEquals(3, t.permits(), "the room of the fuller limit: " + t);
        assertEquals(0, t.decision().states().get(0).remaining());
        Taken none = take(p, k, 1, 5);
        assertFalse(none.decision().allowed());
        assertEquals(0, none.permits());
        assertTrue(none.decision().retryAfterMicros() > 0, none.toString());
        ahead.addAndGet(W + USABLE + 10_000); // the short window frees; the minute's holds 10 of 12
        Taken big = take(p, k, 3, 5);
        assertFalse(big.decision().allowed(), "room for 2 is a refusal of a call of 3: " + big);
        assertEquals(2, take(p, k, 2, 5).permits());
    }

    @Test
    void whatIsGivenBackIsFreeAtOnce() {
        Policy p = log("ahead-give", "10/1s");
        String k = key();
        Taken t = take(p, k, 1, 10);
        assertEquals(10, t.permits());
        assertFalse(admitted(p, k));
        assertEquals(7, store.giveBack(p, k, t.takenAtMicros(), 4, 10).toCompletableFuture().join());
        assertEquals(0, store.giveBack(p, k, t.takenAtMicros(), 4, 10).toCompletableFuture().join(), "given once");
        assertEquals(7, admittedOf(p, k, 9));
    }

    @Test
    void callsAfterABatchGetInstantsOfTheirOwnAndKeepTheirOrder() {
        Policy p = log("ahead-order", "1000/1s");
        String k = key();
        take(p, k, 1, 100);
        // several decisions of one key in one script call are decided in one microsecond or close: each is an entry
        int admitted = 0;
        for (int round = 0; round < 5; round++) {
            List<java.util.concurrent.CompletableFuture<Decision>> all = new java.util.ArrayList<>();
            for (int i = 0; i < 50; i++) {
                all.add(store.acquire(p, k, 1).toCompletableFuture());
            }
            for (var f : all) {
                admitted += f.join().allowed() ? 1 : 0;
            }
            take(p, k, 1, 20);
        }
        assertEquals(250, admitted);
        try (Resp resp = server.connect()) {
            long members = resp.number("ZCARD", "slidegate:{" + p.name() + ":" + k + "}:log");
            assertEquals(1 + 100 + 250 + 5 * 20, members, "every permit is a member of its own (and the slots member)");
        }
        assertEquals(1000 - 450, store.acquire(p, k, 1).toCompletableFuture().join().states().get(0).remaining() + 1);
    }

    @Test
    void noBatchWhileACallWaitsForTheKeyAndTheWaitingCallKeepsItsPlaceAfterOne() {
        Policy p = log("ahead-wait", "2/1s");
        String k = key();
        assertEquals(2, admittedOf(p, k, 2));
        Decision waits = store.acquire(p, k, 1, 2 * W).toCompletableFuture().join();
        assertTrue(waits.allowed() && waits.waitMicros() > 0, waits.toString());
        assertFalse(take(p, k, 1, 2).decision().allowed(), "a batch would come before the call that waits");
        // with a batch in force, a call that waits is placed after the reservation made before it
        ahead.addAndGet(3 * W);
        Taken t = take(p, k, 1, 1);
        assertEquals(1, t.permits());
        Decision first = store.acquire(p, k, 1, 5 * W).toCompletableFuture().join();
        assertTrue(first.allowed() && first.waitMicros() == 0, "room for one: " + first);
        Decision second = store.acquire(p, k, 1, 5 * W).toCompletableFuture().join();
        Decision third = store.acquire(p, k, 1, 5 * W).toCompletableFuture().join();
        assertTrue(second.allowed() && second.waitMicros() > 0, second.toString());
        assertTrue(third.allowed() && third.atMicros() > second.atMicros(),
                "placed after the reservation before it: " + second + " then " + third);
        assertTrue(second.atMicros() < t.lastUseMicros() + W, "the second waits for the first to free: " + second);
        assertTrue(third.atMicros() > t.lastUseMicros() + W,
                "the third waits for the batch's permit to free, a window after its last use: " + third + " after " + t);
    }

    @Test
    void aHeldKeyGivesNoBatch() {
        Policy p = log("ahead-held", "10/1s");
        String k = key();
        store.hold(p, k, 500_000).toCompletableFuture().join();
        assertFalse(take(p, k, 1, 5).decision().allowed());
        ahead.addAndGet(600_000);
        assertEquals(5, take(p, k, 1, 5).permits());
        // a hold said while a batch lies ahead keeps the batch's record
        store.hold(p, k, 100_000).toCompletableFuture().join();
        ahead.addAndGet(150_000);
        assertEquals(5, admittedOf(p, k, 7), "the batch still counts after the hold");
    }

    /**
     * The reference model of a sliding log with batches: every record is a count of permits with the last instant they may
     * be used at (a call's own instant; a batch's taken instant plus its usable time); a decision at t counts the records
     * whose instant is t - W or later, for every limit.
     */
    private static final class Model {
        final List<Limit> limits;
        final java.util.Map<Long, long[]> batches = new java.util.HashMap<>(); // taken at -> {last use, permits left}
        final List<long[]> calls = new java.util.ArrayList<>(); // {instant, cost}

        Model(List<Limit> limits) {
            this.limits = limits;
        }

        long used(Limit l, long t) {
            long n = 0;
            for (long[] c : calls) {
                n += c[0] >= t - l.windowMicros() ? c[1] : 0;
            }
            for (long[] b : batches.values()) {
                n += b[0] >= t - l.windowMicros() ? b[1] : 0;
            }
            return n;
        }

        long room(long t) {
            long room = Long.MAX_VALUE;
            for (Limit l : limits) {
                room = Math.min(room, l.permits() - Math.min(l.permits(), used(l, t)));
            }
            return room;
        }

        void remaining(long t, Decision d, String what) {
            for (int i = 0; i < limits.size(); i++) {
                Limit l = limits.get(i);
                assertEquals(l.permits() - Math.min(l.permits(), used(l, t)), d.states().get(i).remaining(),
                        what + ": remaining of " + l);
            }
        }
    }

    @Test
    void randomTimelinesAgreeWithTheReferenceModelOfBatches() {
        List<Limit> limits = List.of(Limit.parse("6/100ms"), Limit.parse("15/1s"));
        Policy p = new Policy("ahead-model", limits, Strategy.SLIDING_LOG, "ip", false);
        long[] steps = { 0, 3_000, 20_000, 45_000, 110_000, 400_000 };
        int decided = 0;
        for (int seed = 1; seed <= 12; seed++) {
            java.util.Random random = new java.util.Random(seed);
            String k = key();
            Model model = new Model(limits);
            for (int op = 0; op < 120; op++) {
                ahead.addAndGet(steps[random.nextInt(steps.length)]);
                String what = "seed " + seed + " op " + op;
                int kind = random.nextInt(10);
                if (kind < 4) { // a call decided by Redis
                    int cost = 1 + random.nextInt(2);
                    Decision d = store.acquire(p, k, cost).toCompletableFuture().join();
                    long t = d.atMicros();
                    assertEquals(model.room(t) >= cost, d.allowed(), what + ": " + d);
                    if (d.allowed()) {
                        model.calls.add(new long[] { t, cost });
                    }
                    model.remaining(t, d, what);
                } else if (kind < 8) { // a batch
                    int cost = 1 + random.nextInt(2);
                    int most = cost + random.nextInt(6);
                    Taken t = take(p, k, cost, most);
                    long at = t.takenAtMicros();
                    long room = model.room(at);
                    long expected = room < cost ? 0 : Math.min(most, room);
                    assertEquals(expected, t.permits(), what + ": " + t);
                    if (t.permits() > 0) {
                        model.batches.put(at, new long[] { at + USABLE, t.permits(), t.permits() });
                    }
                    model.remaining(at, t.decision(), what);
                } else if (!model.batches.isEmpty()) { // a batch partly used gives back the rest
                    List<Long> taken = new java.util.ArrayList<>(model.batches.keySet());
                    java.util.Collections.sort(taken);
                    long at = taken.get(random.nextInt(taken.size()));
                    long[] b = model.batches.get(at);
                    if (b[1] == b[2]) { // not given back yet
                        int usedOf = random.nextInt((int) b[2] + 1);
                        int given = store.giveBack(p, k, at, usedOf + 1, (int) b[2]).toCompletableFuture().join();
                        // (members the log dropped already, past every window or beyond its newest max(N), count nowhere)
                        assertTrue(given <= b[2] - usedOf, what + ": given back " + given);
                        b[1] = usedOf;
                    }
                }
                decided++;
            }
        }
        assertTrue(decided >= 12 * 120);
    }

    @Test
    void aFixedWindowsBatchIsUsedBeforeItsWindowEndsAndGivenBackIntoIt() {
        Policy p = new Policy("ahead-fixed", List.of(Limit.parse("10/1s")), Strategy.FIXED_WINDOW, "ip", false);
        Taken t = takeAt(p, W, 10_000, 4); // 10 ms into a window of 1 s
        String k = keyOf;
        assertEquals(4, t.permits(), t.toString());
        long windowEnd = (t.takenAtMicros() / W + 1) * W;
        assertTrue(t.lastUseMicros() <= windowEnd && t.lastUseMicros() <= t.takenAtMicros() + USABLE,
                "used before the window ends and within its usable time: " + t);
        assertEquals(6, t.decision().states().get(0).remaining());
        assertEquals(6, admittedOf(p, k, 8));
        assertEquals(0, take(p, k, 1, 4).permits(), "the window is full");
        store.giveBack(p, k, t.takenAtMicros(), 2, 4).toCompletableFuture().join(); // used 1, gave back 3
        assertEquals(3, admittedOf(p, k, 5), "what was given back is free in its window");
        // a batch asked 990 ms into a window of 1 s: usable only until the window ends
        Taken late = takeAt(p, W, 990_000, 4);
        assertEquals(4, late.permits(), late.toString());
        assertTrue(late.lastUseMicros() == (late.takenAtMicros() / W + 1) * W, "clipped to the window's end: " + late);
    }

    @Test
    void aSlidingCountersBatchIsUsedBeforeItsCellEndsAndGivenBackIntoIt() {
        // 20/1s in 10 cells of 100 ms
        Policy p = new Policy("ahead-counter", List.of(Limit.parse("20/1s")), Strategy.SLIDING_COUNTER, "ip", false);
        Taken t = takeAt(p, 100_000, 5_000, 8); // 5 ms into a cell
        String k = keyOf;
        assertEquals(8, t.permits(), t.toString());
        long cellEnd = (t.takenAtMicros() / 100_000 + 1) * 100_000;
        assertTrue(t.lastUseMicros() <= cellEnd && t.lastUseMicros() <= t.takenAtMicros() + USABLE,
                "used before its cell ends and within its usable time: " + t);
        assertEquals(12, admittedOf(p, k, 15));
        store.giveBack(p, k, t.takenAtMicros(), 6, 8).toCompletableFuture().join(); // used 5
        assertEquals(3, admittedOf(p, k, 5), "what was given back is free again");
        Taken late = takeAt(p, 100_000, 95_000, 8); // 95 ms into a cell: usable for 5 ms at most
        assertEquals(8, late.permits(), late.toString());
        assertTrue(late.lastUseMicros() == (late.takenAtMicros() / 100_000 + 1) * 100_000,
                "clipped to its cell's end: " + late);
    }

    /**
     * Moves the store's clock to {@code into} µs after the start of its next period of {@code period} µs, judged by the
     * server's own time (a batch of another key, which says it), and takes a batch of {@code p} there: a machine that
     * stalls past the period's end gets up to three tries.
     */
    private static Taken takeAt(Policy p, long period, long into, int most) {
        for (int tries = 0;; tries++) {
            long server = take(p, key(), 1, 1).takenAtMicros();
            ahead.addAndGet(period - Math.floorMod(server, period) + into);
            String k = key();
            keyOf = k;
            Taken t = take(p, k, 1, most);
            long at = Math.floorMod(t.takenAtMicros(), period); // where in its period the batch was taken
            if ((at >= into && at < into + Math.min(period / 4, period - into)) || tries == 2) {
                return t;
            }
        }
    }
}
