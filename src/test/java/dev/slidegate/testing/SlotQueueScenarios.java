package dev.slidegate.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Policy;
import dev.slidegate.core.DecisionStore;
import dev.slidegate.core.InFlightSlots;
import dev.slidegate.core.SlotWaits;

/**
 * Waiting for a slot (issue 40), as a contract every store that queues keeps: two instances share a store, each with
 * its own {@link SlotWaits}; one slot per key; calls wait up to a max-wait. The oracle is the order the calls are
 * admitted in and what a call that does not wait is told meanwhile. Run on memory by {@code SlotWaitsTest} and on
 * Redis 7, Redis 6.2 and a cluster by the Redis store contracts (on their own servers).
 */
public final class SlotQueueScenarios {

    private SlotQueueScenarios() {
    }

    private static final Policy ONE = Policy.inFlight("one-at-a-time", 1, 30_000_000L, "ip");

    /** Two instances on one store. */
    public record Fleet(SlotWaits a, SlotWaits b) {
    }

    private static Decision now(DecisionStore store, String key) {
        return store.enter(ONE, key, 0).toCompletableFuture().join();
    }

    private static CompletableFuture<Decision> waiting(SlotWaits store, String key, long maxWaitMillis,
            ConcurrentLinkedQueue<String> order, String name) throws InterruptedException {
        int ticketed = store.ticketed(ONE, key);
        CompletableFuture<Decision> d = store.enter(ONE, key, maxWaitMillis * 1000).toCompletableFuture()
                .whenComplete((decision, e) -> {
                    if (decision != null && decision.allowed()) {
                        order.add(name);
                    }
                });
        // observed, not slept for: its ticket is in the store's queue, so the next call arrives after it everywhere
        long until = System.nanoTime() + 5_000_000_000L;
        while (store.ticketed(ONE, key) <= ticketed && !d.isDone() && System.nanoTime() < until) {
            Thread.sleep(5);
        }
        return d;
    }

    private static void leave(DecisionStore store, String key, Decision lease) {
        assertEquals(List.of(), store.leave(ONE, key, List.of(lease.atMicros())).toCompletableFuture().join());
    }

    // calls of one key queued on two instances get the slot in the order they arrived, each as the one before leaves it,
    // and a call that does not wait never takes a slot a queued call waits for
    public static void queuedCallsGetTheSlotInArrivalOrderAcrossInstances(Fleet fleet) throws Exception {
        String key = UUID.randomUUID().toString();
        ConcurrentLinkedQueue<String> order = new ConcurrentLinkedQueue<>();
        Decision first = now(fleet.a(), key);
        assertTrue(first.allowed());
        CompletableFuture<Decision> w1 = waiting(fleet.a(), key, 10_000, order, "w1");
        CompletableFuture<Decision> w2 = waiting(fleet.b(), key, 10_000, order, "w2");
        CompletableFuture<Decision> w3 = waiting(fleet.a(), key, 10_000, order, "w3");
        assertFalse(w1.isDone() || w2.isDone() || w3.isDone(), "the slot is held: all three wait");
        leave(fleet.a(), key, first);
        Decision d1 = w1.get(5, TimeUnit.SECONDS);
        assertTrue(d1.allowed());
        assertFalse(now(fleet.b(), key).allowed(), "the slot is w1's");
        leave(fleet.a(), key, d1);
        Decision d2 = w2.get(5, TimeUnit.SECONDS); // on the other instance: at its next turn
        assertTrue(d2.allowed());
        assertFalse(w3.isDone());
        leave(fleet.b(), key, d2);
        Decision d3 = w3.get(5, TimeUnit.SECONDS);
        assertTrue(d3.allowed());
        assertEquals(List.of("w1", "w2", "w3"), List.copyOf(order));
        assertFalse(now(fleet.b(), key).allowed(), "w3 holds the slot");
        leave(fleet.a(), key, d3);
        Decision last = now(fleet.b(), key);
        assertTrue(last.allowed(), "no one waits any more: a call that does not wait is admitted");
        leave(fleet.b(), key, last);
    }

    // a call whose max-wait is over is refused, and leaves the queue: the call behind it gets the slot next
    public static void aCallRefusedAtItsMaxWaitLeavesTheQueue(Fleet fleet) throws Exception {
        String key = UUID.randomUUID().toString();
        ConcurrentLinkedQueue<String> order = new ConcurrentLinkedQueue<>();
        Decision first = now(fleet.a(), key);
        CompletableFuture<Decision> brief = waiting(fleet.a(), key, 200, order, "brief");
        CompletableFuture<Decision> patient = waiting(fleet.b(), key, 10_000, order, "patient");
        Decision refused = brief.get(5, TimeUnit.SECONDS);
        assertFalse(refused.allowed(), "refused once its 200 ms were over");
        assertEquals(InFlightSlots.inFlightRetryMicros(ONE), refused.retryAfterMicros());
        leave(fleet.a(), key, first);
        assertTrue(patient.get(5, TimeUnit.SECONDS).allowed());
        assertEquals(List.of("patient"), List.copyOf(order));
        leave(fleet.b(), key, patient.join());
        assertEquals(0, fleet.a().waiting(ONE, key) + fleet.b().waiting(ONE, key));
    }

    /** Two slots per key, held 30 s unless ended. */
    private static final Policy TWO = Policy.inFlight("two-at-a-time", 2, 30_000_000L, "ip");

    // issue 56, point 4: a thousand calls waiting for two slots, half on each instance. Each slot that frees goes to a
    // waiting call (none is refused while a slot is free and its max-wait lasts), every waiting call gets an answer (a
    // slot, or a refusal at its max-wait), and none fails: before, a thousand tickets given in one store call cost the
    // store O(n^2) (every new ticket looked for a free instant from the same one), which stalled Redis long enough for
    // the waiters to be refused with the slots free
    public static void aFloodOfWaitersUsesEverySlotThatFrees(Fleet fleet) throws Exception {
        String key = UUID.randomUUID().toString();
        List<Decision> running = new java.util.ArrayList<>();
        running.add(fleet.a().enter(TWO, key, 0).toCompletableFuture().join());
        running.add(fleet.b().enter(TWO, key, 0).toCompletableFuture().join());
        assertTrue(running.get(0).allowed() && running.get(1).allowed());
        int waiters = 1000;
        List<CompletableFuture<Decision>> calls = new java.util.ArrayList<>();
        for (int i = 0; i < waiters; i++) {
            calls.add((i % 2 == 0 ? fleet.a() : fleet.b()).enter(TWO, key, 8_000_000).toCompletableFuture());
        }
        long until = System.nanoTime() + 5_000_000_000L;
        while (fleet.a().waiting(TWO, key) + fleet.b().waiting(TWO, key) < waiters && System.nanoTime() < until) {
            Thread.sleep(5);
        }
        assertEquals(waiters, fleet.a().waiting(TWO, key) + fleet.b().waiting(TWO, key), "every call waits");
        java.util.Set<CompletableFuture<Decision>> ran = new java.util.HashSet<>();
        for (int round = 0; round < 3; round++) { // each slot that frees goes to a waiting call
            for (Decision d : running) {
                fleet.a().leave(TWO, key, List.of(d.atMicros())).toCompletableFuture().join();
            }
            running.clear();
            List<CompletableFuture<Decision>> next = new java.util.ArrayList<>();
            long by = System.nanoTime() + 3_000_000_000L;
            while (next.size() < 2 && System.nanoTime() < by) {
                Thread.sleep(5);
                next.clear();
                for (CompletableFuture<Decision> c : calls) {
                    if (!ran.contains(c) && c.isDone()) {
                        assertFalse(c.isCompletedExceptionally() || !c.join().allowed(),
                                "round " + round + ": a waiting call was refused or failed while slots freed: " + c);
                        next.add(c);
                    }
                }
            }
            assertEquals(2, next.size(), "round " + round + ": both freed slots went to waiting calls");
            ran.addAll(next);
            next.forEach(c -> running.add(c.join()));
        }
        for (Decision d : running) {
            fleet.a().leave(TWO, key, List.of(d.atMicros())).toCompletableFuture().join();
        }
        int admitted = ran.size();
        for (CompletableFuture<Decision> c : calls) {
            if (ran.contains(c)) {
                continue;
            }
            Decision d = c.get(15, TimeUnit.SECONDS); // every call answered, none failed
            if (d.allowed()) {
                admitted++;
                fleet.a().leave(TWO, key, List.of(d.atMicros())).toCompletableFuture().join();
            }
        }
        assertTrue(admitted >= 6, admitted + " admitted");
    }

    // an instance that stops asking (it died) holds its place for the lapse only: its ticket reserves the slot until
    // then (a call that does not wait is refused), then the next in line gets it
    public static void theTicketOfAnInstanceThatStoppedAskingLapses(Fleet fleet) throws Exception {
        String key = UUID.randomUUID().toString();
        ConcurrentLinkedQueue<String> order = new ConcurrentLinkedQueue<>();
        Decision first = now(fleet.a(), key);
        DecisionStore.Turn dead = fleet.b().delegate().queue(ONE, key, List.of(0L), SlotWaits.LAPSE_MICROS)
                .toCompletableFuture().join(); // queued once, never asked for again
        assertEquals(List.of(0L), dead.leases());
        CompletableFuture<Decision> alive = waiting(fleet.a(), key, 10_000, order, "alive");
        leave(fleet.a(), key, first);
        assertFalse(now(fleet.b(), key).allowed(), "the slot waits for the first ticket while it has not lapsed");
        Decision d = alive.get(5, TimeUnit.SECONDS);
        assertTrue(d.allowed(), "the next in line, once the first ticket lapsed");
        leave(fleet.a(), key, d);
    }
}
