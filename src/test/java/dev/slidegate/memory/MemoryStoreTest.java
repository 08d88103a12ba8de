package dev.slidegate.memory;

import static dev.slidegate.testing.Policies.policy;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Limit;
import dev.slidegate.api.Policy;
import dev.slidegate.api.Strategy;
import dev.slidegate.core.DecisionBuffer;
import dev.slidegate.testing.ManualClock;

/** What only the in-process store can get wrong: agreement with the reference, threads, eviction, allocation. */
class MemoryStoreTest {

    private final ManualClock clock = new ManualClock();
    private final DecisionBuffer buffer = new DecisionBuffer();

    // 600 random timelines (random limits, costs, keys, steps and cells, every strategy, with and
    // without count-rejected): every decision of the store equals the naive reference's, field for field
    // (decide), or in its outcome (tryAcquire, chosen at random per step)
    @Test
    void agreesWithTheReferenceOnRandomTimelines() {
        Random random = new Random(20261122);
        for (int run = 0; run < 600; run++) {
            ManualClock c = new ManualClock();
            MemoryStore store = new MemoryStore(c, 1000);
            ReferenceStore reference = new ReferenceStore(c);
            Strategy strategy = Strategy.values()[random.nextInt(Strategy.values().length)];
            List<String> limits = new ArrayList<>();
            int count = 1 + random.nextInt(3);
            for (int i = 0; i < count; i++) {
                limits.add((1 + random.nextInt(20)) + "/" + (i + 1) * (100 + random.nextInt(900)) + "ms");
            }
            Policy p;
            try {
                p = new Policy("r" + run, limits.stream().map(Limit::parse).toList(), strategy, "ip", random.nextBoolean(),
                        false,
                        1 + random.nextInt(12));
            } catch (IllegalArgumentException sameWindowTwice) {
                continue;
            }
            for (int step = 0; step < 400; step++) {
                c.advanceMicros(random.nextInt(4) == 0 ? 0 : random.nextInt(150_000));
                String key = "k" + random.nextInt(3);
                int cost = 1 + (random.nextInt(5) == 0 ? random.nextInt(4) : 0);
                int form = random.nextInt(3);
                // a third of the decisions may wait (up to 0.6 s: up to several windows), never tryAcquire's
                long maxWait = form > 0 && random.nextInt(3) == 0 ? random.nextInt(600_000) : 0;
                Decision expected = reference.acquire(p, key, cost, maxWait).toCompletableFuture().join();
                String where = "run " + run + " step " + step + " policy " + p + " max wait " + maxWait;
                if (form == 0) { // the allocation-free form, with its lock-free refusals, agrees too
                    assertEquals(expected.allowed(), store.tryAcquire(p, key, cost), "tryAcquire, " + where);
                } else if (form == 1) {
                    Decision actual = store.decide(p, key, cost, maxWait);
                    assertEquals(expected, actual, where);
                } else { // the full decision written into one buffer reused by every run (1 to 3 limits)
                    store.decide(p, key, cost, maxWait, buffer);
                    assertEquals(expected, buffer.toDecision(), "into a buffer, " + where);
                }
            }
        }
    }

    // overrides change a policy's limits mid-window, in either direction: 600 random timelines in which
    // the limits in force switch, every 40 steps on average, between the policy's own and two overrides'
    // (random N and W, windows new or shared, one or two limits), and back; every strategy, with and
    // without count-rejected. Every decision (decide or tryAcquire) and every peek equals the reference's,
    // which keeps every charge and counts by scanning (docs/strategies.md "When limits change")
    @Test
    void agreesWithTheReferenceWhenOverridesComeAndGo() {
        Random random = new Random(20261125);
        for (int run = 0; run < 600; run++) {
            ManualClock c = new ManualClock();
            MemoryStore store = new MemoryStore(c, 1000);
            ReferenceStore reference = new ReferenceStore(c);
            Strategy strategy = Strategy.values()[run % Strategy.values().length];
            boolean countRejected = random.nextBoolean();
            int cells = 1 + random.nextInt(12);
            List<Policy> policies = new ArrayList<>();
            while (policies.size() < 3) {
                List<Limit> limits = new ArrayList<>();
                for (int i = 0, count = 1 + random.nextInt(2); i < count; i++) {
                    long w = random.nextInt(3) == 0 && !policies.isEmpty() // a window the policy has too, now and then
                            ? policies.get(0).limits().get(0).windowMicros()
                            : 50_000L + random.nextInt(20) * 50_000L;
                    limits.add(new Limit(1 + random.nextInt(12), w));
                }
                try {
                    policies.add(new Policy("o" + run, limits, strategy, "ip", countRejected, false, cells));
                } catch (IllegalArgumentException sameWindowTwice) {
                    // draw again
                }
            }
            Policy p = policies.get(0);
            for (int step = 0; step < 400; step++) {
                if (random.nextInt(40) == 0) {
                    p = policies.get(random.nextInt(2) == 0 ? 0 : 1 + random.nextInt(2));
                }
                c.advanceMicros(random.nextInt(4) == 0 ? 0 : random.nextInt(60_000));
                String key = "k" + random.nextInt(2);
                int cost = 1 + (random.nextInt(5) == 0 ? random.nextInt(4) : 0);
                String where = "run " + run + " step " + step + " policy " + p;
                if (random.nextInt(8) == 0) {
                    assertEquals(reference.peek(p, key).toCompletableFuture().join(),
                            store.peek(p, key).toCompletableFuture().join(), "peek, " + where);
                }
                int form = random.nextInt(3);
                long maxWait = form > 0 && random.nextInt(3) == 0 ? random.nextInt(400_000) : 0;
                where += " max wait " + maxWait;
                Decision expected = reference.acquire(p, key, cost, maxWait).toCompletableFuture().join();
                if (form == 0) {
                    assertEquals(expected.allowed(), store.tryAcquire(p, key, cost), "tryAcquire, " + where);
                } else if (form == 1) {
                    assertEquals(expected, store.decide(p, key, cost, maxWait), where);
                } else {
                    store.decide(p, key, cost, maxWait, buffer);
                    assertEquals(expected, buffer.toDecision(), "into a buffer, " + where);
                }
            }
        }
    }

    // issue 41: calls settled after they ran. 450 random timelines (the strategies that settle, random limits, costs,
    // keys, cells, count-rejected, a third of the calls waiting): admitted calls are settled at random later steps with
    // a usage below their estimate (to 0: a refund), equal, above it (up to 4 times, now and then 1 000 times: the key
    // goes over its limit) or not at all. Every decision, peek and settlement equals the reference's, which changes the
    // charge made at the admission's instant and counts by scanning
    @Test
    void settlementsAgreeWithTheReferenceOnRandomTimelines() {
        Random random = new Random(20261126);
        Strategy[] settling = { Strategy.FIXED_WINDOW, Strategy.SLIDING_COUNTER, Strategy.TOKEN_BUCKET };
        for (int run = 0; run < 450; run++) {
            ManualClock c = new ManualClock();
            MemoryStore store = new MemoryStore(c, 1000);
            ReferenceStore reference = new ReferenceStore(c);
            Strategy strategy = settling[run % settling.length];
            List<Limit> limits = new ArrayList<>();
            for (int i = 0, count = 1 + random.nextInt(2); i < count; i++) {
                limits.add(new Limit(2 + random.nextInt(30), (i + 1) * (100_000L + random.nextInt(900_000))));
            }
            Policy p = new Policy("s" + run, limits, strategy, "ip", random.nextInt(4) == 0, false, 1 + random.nextInt(12));
            record Admitted(String key, long at, int estimate) {
            }
            List<Admitted> running = new ArrayList<>();
            StringBuilder history = new StringBuilder();
            for (int step = 0; step < 300; step++) {
                c.advanceMicros(random.nextInt(4) == 0 ? 0 : random.nextInt(60_000));
                int r = run;
                int st = step;
                java.util.function.Supplier<String> where = () -> "run " + r + " step " + st + " policy " + p + "\nafter"
                        + history;
                if (!running.isEmpty() && random.nextInt(3) == 0) {
                    Admitted a = running.remove(random.nextInt(running.size()));
                    long actual = switch (random.nextInt(6)) {
                        case 0 -> 0; // a call that failed, refunded
                        case 1 -> a.estimate();
                        case 2 -> random.nextInt(a.estimate() + 1);
                        case 3 -> random.nextInt(20) == 0 ? 1000L * a.estimate()
                                : a.estimate() + random.nextInt(3 * a.estimate() + 1);
                        default -> a.estimate() + random.nextInt(a.estimate() + 1);
                    };
                    assertEquals(reference.settle(p, a.key(), a.at(), a.estimate(), actual).toCompletableFuture().join(),
                            store.settle(p, a.key(), a.at(), a.estimate(), actual).toCompletableFuture().join(),
                            () -> "settle " + a + " at " + actual + ", " + where.get());
                    history.append("\n  at ").append(c.nowMicros()).append(" settle ").append(a).append(" to ").append(actual);
                    continue;
                }
                String key = "k" + random.nextInt(2);
                int cost = 1 + (random.nextInt(3) == 0 ? random.nextInt(6) : 0);
                if (random.nextInt(8) == 0) {
                    assertEquals(reference.peek(p, key).toCompletableFuture().join(),
                            store.peek(p, key).toCompletableFuture().join(), () -> "peek, " + where.get());
                }
                long maxWait = random.nextInt(3) == 0 ? random.nextInt(400_000) : 0;
                Decision expected = reference.acquire(p, key, cost, maxWait).toCompletableFuture().join();
                assertEquals(expected, store.decide(p, key, cost, maxWait), () -> where.get() + "\nmax wait " + maxWait);
                history.append("\n  at ").append(c.nowMicros()).append(' ').append(key).append(" cost ").append(cost)
                        .append(" wait ").append(maxWait).append(": ").append(expected.allowed()).append(" at ")
                        .append(expected.atMicros()).append(' ').append(expected.states());
                if (expected.allowed() && random.nextInt(5) != 0) { // a fifth are never settled: their estimate stands
                    running.add(new Admitted(key, expected.atMicros(), cost));
                }
            }
        }
    }

    // issue 41, calendar periods: 300 random timelines of a fixed-window policy with a limit per day, week or month in
    // Europe/Berlin (and now and then a window of one length beside it), a settable clock walking hours and days at a
    // time from just before a change of summer time, a month end or a leap day; calls wait now and then, settle now and
    // then, and overrides switch the limits (the same periods with another N, or none). Every decision and peek equals
    // the reference's, which counts the charges of the period that holds each instant by scanning
    @Test
    void calendarPeriodsAgreeWithTheReferenceOnRandomTimelines() {
        Random random = new Random(20261127);
        java.time.ZoneId berlin = java.time.ZoneId.of("Europe/Berlin");
        String[] starts = { "2026-03-27T10:00:00Z", "2026-10-22T10:00:00Z", "2026-12-29T10:00:00Z", "2028-02-26T10:00:00Z",
                "2027-02-25T10:00:00Z" };
        for (int run = 0; run < 300; run++) {
            ManualClock c = new ManualClock();
            java.time.Instant start = java.time.Instant.parse(starts[run % starts.length]);
            c.set(start.getEpochSecond() * 1_000_000);
            MemoryStore store = new MemoryStore(c, 1000);
            ReferenceStore reference = new ReferenceStore(c);
            dev.slidegate.api.Calendar.Unit unit = dev.slidegate.api.Calendar.Unit.values()[random.nextInt(3)];
            List<Policy> policies = new ArrayList<>();
            for (int k = 0; k < 2; k++) {
                List<Limit> limits = new ArrayList<>();
                limits.add(new Limit(5 + random.nextInt(40), new dev.slidegate.api.Calendar(unit, berlin)));
                if (random.nextBoolean()) {
                    limits.add(new Limit(2 + random.nextInt(5), (1 + random.nextInt(6)) * 3_600_000_000L));
                }
                policies.add(new Policy("cal" + run, limits, Strategy.FIXED_WINDOW, "ip", random.nextInt(4) == 0, false, 10));
            }
            Policy p = policies.get(0);
            long step = unit == dev.slidegate.api.Calendar.Unit.DAY ? 1_800_000_000L : 6 * 3_600_000_000L;
            for (int i = 0; i < 160; i++) {
                if (random.nextInt(30) == 0) {
                    p = policies.get(p == policies.get(0) ? 1 : 0);
                }
                c.advanceMicros(random.nextInt(4) == 0 ? 0 : (long) (random.nextDouble() * step));
                String key = "k" + random.nextInt(2);
                int cost = 1 + (random.nextInt(4) == 0 ? random.nextInt(3) : 0);
                long maxWait = random.nextInt(4) == 0 ? (long) (random.nextDouble() * 86_400_000_000L) : 0;
                String where = "run " + run + " step " + i + " at " + java.time.Instant.ofEpochMilli(c.nowMicros() / 1000)
                        + " " + p;
                if (random.nextInt(8) == 0) {
                    assertEquals(reference.peek(p, key).toCompletableFuture().join(),
                            store.peek(p, key).toCompletableFuture().join(), "peek, " + where);
                }
                Decision expected = reference.acquire(p, key, cost, maxWait).toCompletableFuture().join();
                assertEquals(expected, store.decide(p, key, cost, maxWait), where + " max wait " + maxWait);
                if (expected.allowed() && random.nextInt(4) == 0) {
                    long actual = random.nextInt(3 * cost + 1);
                    assertEquals(reference.settle(p, key, expected.atMicros(), cost, actual).toCompletableFuture().join(),
                            store.settle(p, key, expected.atMicros(), cost, actual).toCompletableFuture().join(), where);
                }
            }
        }
    }

    // a monthly budget in Berlin, as a tenant sees it: used up on the evening of 31 March, refused until midnight in
    // Berlin (22:00 UTC, summer time), when April starts whole; the limit's reset says how long until then
    @Test
    void aMonthlyBudgetStartsAgainAtMidnightInItsZone() {
        ManualClock c = new ManualClock();
        c.set(java.time.Instant.parse("2026-03-31T18:00:00Z").getEpochSecond() * 1_000_000);
        MemoryStore store = new MemoryStore(c, 100);
        Policy p = new Policy("budget", List.of(Limit.parse("1000/month").inZone(java.time.ZoneId.of("Europe/Berlin"))),
                Strategy.FIXED_WINDOW, "ip", false, false, 10);
        Decision all = store.decide(p, "tenant", 1000, 0);
        assertTrue(all.allowed());
        assertEquals(4L * 3_600_000_000L, all.states().get(0).resetMicros(), "4 h to midnight in Berlin");
        c.advanceMicros(3 * 3_600_000_000L + 3_599_000_000L); // 21:59:59 UTC: 23:59:59 in Berlin, still March
        Decision refused = store.decide(p, "tenant", 1, 0);
        assertFalse(refused.allowed());
        assertEquals(1_000_000L, refused.retryAfterMicros());
        c.advanceMicros(1_000_000L); // 22:00 UTC: April in Berlin
        Decision april = store.decide(p, "tenant", 1, 0);
        assertTrue(april.allowed());
        assertEquals(999, april.remaining());
        assertEquals(30L * 86_400_000_000L, april.states().get(0).resetMicros(), "April: 30 days of 24 h");
    }

    // a settlement checks what it is given, on every strategy: the sliding log and calls in flight do not settle, and an
    // estimate or a usage out of range is refused with a sentence; nothing is changed by a refused settlement
    @Test
    void aSettlementTheStoreCannotMakeIsRefusedWithASentence() {
        MemoryStore store = new MemoryStore(clock, 100);
        Policy log = policy("log", Strategy.SLIDING_LOG, false, "5/1s");
        Decision d = store.decide(log, "k", 1, 0);
        Throwable e = org.junit.jupiter.api.Assertions.assertThrows(java.util.concurrent.CompletionException.class,
                () -> store.settle(log, "k", d.atMicros(), 1, 5).toCompletableFuture().join()).getCause();
        assertEquals("policy 'log' counts with sliding-log, which cannot settle a call after it ran: use "
                + Strategy.settlingNames(), e.getMessage());
        assertEquals(3, store.decide(log, "k", 1, 0).remaining(), "nothing charged by the refused settlement");
        Policy counter = policy("counter", Strategy.SLIDING_COUNTER, false, "5/1s");
        Decision c = store.decide(counter, "k", 2, 0);
        for (long[] bad : new long[][] { { 0, 1 }, { 2, -1 }, { 2, dev.slidegate.core.DecisionStore.MAX_SETTLED + 1 } }) {
            Throwable t = org.junit.jupiter.api.Assertions.assertThrows(java.util.concurrent.CompletionException.class,
                    () -> store.settle(counter, "k", c.atMicros(), (int) bad[0], bad[1]).toCompletableFuture().join())
                    .getCause();
            assertTrue(t.getMessage().startsWith("a call is settled from an estimate of 1 permit at least"), t.getMessage());
        }
        assertEquals(3, store.peek(counter, "k").toCompletableFuture().join().remaining());
        store.settle(counter, "k", c.atMicros(), 2, 0).toCompletableFuture().join();
        assertEquals(5, store.peek(counter, "k").toCompletableFuture().join().remaining(), "refunded");
        store.settle(counter, "unknown", c.atMicros(), 2, 9).toCompletableFuture().join(); // a key never decided: nothing
        assertEquals(5, store.peek(counter, "unknown").toCompletableFuture().join().remaining());
        // a token bucket's overage is charged now, even to a bucket full again (no longer kept): it owes 2 permits
        Policy bucket = policy("bucket", Strategy.TOKEN_BUCKET, false, "5/1s");
        store.settle(bucket, "gone", c.atMicros(), 1, 3).toCompletableFuture().join();
        assertEquals(3, store.peek(bucket, "gone").toCompletableFuture().join().remaining());
    }

    // lowering N mid-window refuses at once against the permits recorded; raising it admits at once;
    // neither restarts the window (its reset stays that of the permits recorded before)
    @ParameterizedTest
    @EnumSource(Strategy.class)
    void changingNMidWindowKeepsTheWindow(Strategy s) {
        MemoryStore store = new MemoryStore(clock, 100);
        Policy five = policy("change", s, false, "5/1s");
        for (int i = 0; i < 4; i++) {
            assertTrue(store.decide(five, "k", 1).allowed());
        }
        clock.advanceMicros(100_000);
        Decision lowered = store.decide(policy("change", s, false, "3/1s"), "k", 1);
        assertFalse(lowered.allowed(), "4 recorded, N lowered to 3: " + lowered);
        assertEquals(0, lowered.remaining());
        Decision raised = store.decide(policy("change", s, false, "10/1s"), "k", 1);
        assertTrue(raised.allowed(), "4 recorded, N raised to 10: " + raised);
        // (a token bucket lowered to 3 kept 3 of the 4 used: a bucket holds at most N)
        assertTrue(raised.remaining() <= 10 - 3 - 1, "the permits recorded still count: " + raised);
    }

    // too many keys: the eviction warning fires at the first eviction, then at most once a minute
    @Test
    void theEvictionWarningFiresOncePerMinute() {
        java.util.logging.Logger log = java.util.logging.Logger.getLogger(MemoryStore.class.getName());
        List<String> warnings = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.logging.Handler handler = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                if (r.getLevel() == java.util.logging.Level.WARNING) {
                    warnings.add(r.getMessage());
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        log.addHandler(handler);
        try {
            MemoryStore store = new MemoryStore(clock, 10);
            Policy p = new Policy("evict", List.of(Limit.parse("5/1h")), Strategy.SLIDING_LOG, "ip", false);
            int next = 0;
            for (int i = 0; i < 12; i++) {
                store.acquire(p, "k" + next++, 1);
            }
            assertEquals(1, warnings.size(), "the first eviction warns: " + warnings);
            clock.advanceMicros(1_000_000);
            for (int i = 0; i < 12; i++) {
                store.acquire(p, "k" + next++, 1);
            }
            assertEquals(1, warnings.size(), "not again within the minute");
            clock.advanceMicros(61_000_000);
            for (int i = 0; i < 12; i++) {
                store.acquire(p, "k" + next++, 1);
            }
            assertEquals(2, warnings.size(), "again after a minute");
            assertTrue(warnings.get(0).contains("slidegate.memory.max-keys"), warnings.get(0));
        } finally {
            log.removeHandler(handler);
        }
    }

    // time never steps backwards for a key: setting the clock back admits nothing extra
    @Test
    void aClockSteppingBackwardsAdmitsNothingExtra() {
        MemoryStore store = new MemoryStore(clock, 100);
        Policy p = policy("back", Strategy.SLIDING_LOG, false, "2/1s");
        long start = clock.nowMicros();
        assertTrue(store.decide(p, "a", 1).allowed());
        assertTrue(store.decide(p, "a", 1).allowed());
        clock.set(start - 10_000_000); // ten seconds back
        Decision d = store.decide(p, "a", 1);
        assertFalse(d.allowed());
        assertEquals(1_000_001, d.retryAfterMicros(), "the wait is measured from the newest instant seen");
        clock.set(start + 1_000_001);
        assertTrue(store.decide(p, "a", 1).allowed());
    }

    // 8 threads x 1000 calls on one key at one instant, N = 100: exactly 100 admitted
    @Test
    void concurrentCallsOnOneKeyAdmitExactlyN() throws InterruptedException {
        MemoryStore store = new MemoryStore(clock, 100);
        Policy p = policy("threads", Strategy.SLIDING_LOG, false, "100/1m");
        AtomicInteger admitted = new AtomicInteger();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            Thread th = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < 1000; i++) {
                    if (store.tryAcquire(p, "hot", 1)) {
                        admitted.incrementAndGet();
                    }
                }
            });
            th.start();
            threads.add(th);
        }
        go.countDown();
        for (Thread th : threads) {
            th.join();
        }
        assertEquals(100, admitted.get());
    }

    // idle keys are dropped first, so the count of keys stays bounded; nothing in use is lost
    @Test
    void idleKeysAreEvictedToStayUnderMaxKeys() {
        MemoryStore store = new MemoryStore(clock, 100);
        Policy p = policy("evict", Strategy.SLIDING_LOG, false, "1/1s");
        for (int i = 0; i < 1000; i++) {
            store.decide(p, "idle" + i, 1);
            clock.advanceMicros(10_000);
        }
        assertTrue(store.size() <= 100, "size " + store.size());
        // the newest keys are still in their window and still refused
        assertFalse(store.decide(p, "idle999", 1).allowed());
    }

    // when every window of a policy is active, none is dropped: new callers share one overflow window,
    // counted like any key (a flood of new keys gets N in all, never a fresh allowance each)
    @Test
    void newKeysBeyondMaxKeysShareOneOverflowWindowAndNoWindowIsDropped() {
        MemoryStore store = new MemoryStore(clock, 100);
        Policy p = policy("full", Strategy.FIXED_WINDOW, false, "1/1h");
        for (int i = 0; i < 100; i++) {
            assertTrue(store.decide(p, "k" + i, 1).allowed());
            clock.advanceMicros(1);
        }
        assertTrue(store.decide(p, "k100", 1).allowed(), "the first new caller takes the overflow window's one permit");
        for (int i = 101; i < 500; i++) {
            assertFalse(store.decide(p, "k" + i, 1).allowed(), "k" + i + " shares the spent overflow window");
        }
        assertEquals(100, store.size());
        assertFalse(store.decide(p, "k0", 1).allowed(), "the oldest window is kept");
        assertTrue(store.keys(p, "", 1000).toCompletableFuture().join().keys().contains(MemoryStore.OVERFLOW));
    }

    // a flood of distinct keys on one policy never touches another policy's windows
    @Test
    void aFloodOnOnePolicyNeverEvictsAnother() {
        MemoryStore store = new MemoryStore(clock, 1000);
        Policy login = policy("login", Strategy.SLIDING_LOG, true, "5/1m");
        Policy reports = policy("reports", Strategy.FIXED_WINDOW, false, "100/1h");
        for (int i = 0; i < 5; i++) {
            assertTrue(store.decide(login, "ip:127.0.0.1", 1).allowed());
        }
        assertFalse(store.decide(login, "ip:127.0.0.1", 1).allowed());
        for (int i = 0; i < 3000; i++) {
            store.decide(reports, "hdr:" + i, 1);
        }
        assertFalse(store.decide(login, "ip:127.0.0.1", 1).allowed(), "the login window survived the flood");
        assertEquals(1, store.count(login).toCompletableFuture().join());
    }

    // a large N grows the ring buffer as needed and stays exact
    @Test
    void largeLimitsStayExact() {
        MemoryStore store = new MemoryStore(clock, 100);
        Policy p = policy("large", Strategy.SLIDING_LOG, false, "10000/1m", "3/1ms");
        int admitted = 0;
        for (int i = 0; i < 20_000; i++) {
            admitted += store.tryAcquire(p, "a", 1) ? 1 : 0;
            clock.advanceMicros(1000);
        }
        // 20 000 ms offered, 3 per ms allowed but one call per ms: the minute-limit caps it at 10 000 in 60 s
        assertEquals(10_000, admitted);
    }

    // in steady state a decision allocates nothing, for every strategy, admitting and refusing (100 000 calls a
    // second against 50 000/s, alone and beside 120 000/3s), through tryAcquire and through decide into a reused buffer
    // (a policy of one limit answers refusals from the last one's standing, without the monitor)
    @ParameterizedTest
    @EnumSource(Strategy.class)
    void decisionsAllocateNothingInSteadyState(Strategy strategy) {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        MemoryStore store = new MemoryStore(clock, 100);
        List<Policy> policies = List.of(policy("alloc-one-" + strategy, strategy, false, "50000/1s"),
                policy("alloc-two-" + strategy, strategy, false, "50000/1s", "120000/3s"));
        int[] outcomes = new int[2];
        for (int i = 0; i < 400_000; i++) { // warm up: a log's ring reaches its full size, the JIT compiles
            for (Policy p : policies) {
                store.tryAcquire(p, "a", 1);
                store.decide(p, "b", 1, buffer);
            }
            clock.advanceMicros(10);
        }
        long id = Thread.currentThread().getId();
        long before = threads.getThreadAllocatedBytes(id);
        for (int i = 0; i < 100_000; i++) {
            for (int j = 0; j < 2; j++) {
                Policy p = policies.get(j);
                outcomes[store.tryAcquire(p, "a", 1) ? 1 : 0]++;
                store.decide(p, "b", 1, buffer);
                outcomes[buffer.allowed() ? 1 : 0]++;
            }
            clock.advanceMicros(10);
        }
        long allocated = threads.getThreadAllocatedBytes(id) - before;
        assertTrue(outcomes[0] > 10_000 && outcomes[1] > 10_000, "both paths taken: " + java.util.Arrays.toString(outcomes));
        assertTrue(allocated < 20_000, "allocated " + allocated + " bytes for 400 000 decisions");
    }

    // a hot key's state is kept at hand, found without the maps; whatever drops or changes that state reaches the calls
    // that find it there: a reset, a sweep of a full policy, an override (another policy object of that name), and a
    // second hot key taking the place (each of every strategy, with calls close enough together to open its cell)
    @ParameterizedTest
    @EnumSource(Strategy.class)
    @org.junit.jupiter.api.Timeout(value = 10, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
    void aKeyKeptAtHandFollowsItsState(Strategy strategy) {
        MemoryStore store = new MemoryStore(clock, 1);
        Policy p = policy("hand-" + strategy, strategy, false, "3/1s");
        int admitted = 0;
        for (int i = 0; i < 5; i++) {
            admitted += store.tryAcquire(p, "a", 1) ? 1 : 0;
            clock.advanceMicros(1);
        }
        assertEquals(3, admitted);
        store.reset(p, "a");
        assertTrue(store.tryAcquire(p, "a", 1), "a reset key starts again");
        store.decide(p, "a", 1, buffer);
        assertEquals(1, buffer.remaining(0), "the new window counts on: " + buffer.toDecision());

        Policy raised = policy("hand-" + strategy, strategy, false, "5/1s"); // an override: the same window, raised
        store.decide(raised, "a", 1, buffer);
        assertTrue(buffer.allowed());
        assertEquals(2, buffer.remaining(0), "counted in the kept window: " + buffer.toDecision());

        clock.advanceMicros(3_000_000); // "a" idle: a new key sweeps it out of the full policy, and then the other way
        for (int i = 0; i < 4; i++) {
            assertTrue(store.tryAcquire(raised, "b", 1));
            clock.advanceMicros(1);
        }
        clock.advanceMicros(3_000_000);
        assertTrue(store.tryAcquire(raised, "a", 1), "a swept key starts again");
        store.decide(raised, "a", 1, buffer);
        assertEquals(3, buffer.remaining(0), "one window for the swept key, not two: " + buffer.toDecision());

        // a key whose hash equals the hot key's ("Aa" and "BB") has its own window
        MemoryStore wide = new MemoryStore(clock, 10);
        for (int i = 0; i < 3; i++) {
            assertTrue(wide.tryAcquire(p, "Aa", 1));
            clock.advanceMicros(1);
        }
        assertFalse(wide.tryAcquire(p, "Aa", 1));
        assertEquals("Aa".hashCode(), "BB".hashCode());
        assertTrue(wide.tryAcquire(p, "BB", 1), "a key of the same hash is another caller");
    }
}
