package dev.slidegate.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Policy;
import dev.slidegate.testing.ManualClock;

/** Calls in flight in process, against the reference store on random timelines, and its bound on keys. */
class InFlightTest {

    // names may differ (the store names a key's leases afresh once it holds none): each lease is a pair of names
    @Test
    void agreesWithTheReferenceOnRandomTimelines() {
        Random random = new Random(20261126);
        for (int run = 0; run < 50; run++) {
            ManualClock clock = new ManualClock();
            MemoryStore store = new MemoryStore(clock, 1000);
            ReferenceStore reference = new ReferenceStore(clock);
            Policy p = Policy.inFlight("in" + run, 1 + random.nextInt(4), 1_000 * (1 + random.nextInt(50)), "ip");
            List<List<long[]>> held = List.of(new ArrayList<>(), new ArrayList<>());
            for (int step = 0; step < 300; step++) {
                int k = random.nextInt(2);
                String key = "k" + k;
                String where = "run " + run + " step " + step + " of " + p;
                int op = random.nextInt(5);
                if (op <= 1) {
                    Decision expected = reference.enter(p, key, 0).toCompletableFuture().join();
                    Decision actual = store.enter(p, key, 0).toCompletableFuture().join();
                    assertEquals(expected.allowed(), actual.allowed(), where);
                    assertEquals(expected.states(), actual.states(), where);
                    assertEquals(expected.retryAfterMicros(), actual.retryAfterMicros(), where);
                    if (expected.allowed()) {
                        for (long[] other : held.get(k)) {
                            assertTrue(other[1] != actual.atMicros(), "a name of its own: " + where);
                        }
                        held.get(k).add(new long[] { expected.atMicros(), actual.atMicros() });
                    }
                } else if (op <= 3) {
                    List<long[]> some = pick(random, held.get(k));
                    if (some.isEmpty()) {
                        continue;
                    }
                    List<Long> refNames = some.stream().map(l -> l[0]).toList();
                    List<Long> names = some.stream().map(l -> l[1]).toList();
                    List<Long> lostThere = op == 2 ? reference.leave(p, key, refNames).toCompletableFuture().join()
                            : reference.renew(p, key, refNames).toCompletableFuture().join();
                    List<Long> lostHere = op == 2 ? store.leave(p, key, names).toCompletableFuture().join()
                            : store.renew(p, key, names).toCompletableFuture().join();
                    assertEquals(some.stream().filter(l -> lostThere.contains(l[0])).map(l -> l[1]).toList(), lostHere, where);
                    if (op == 2) {
                        held.get(k).removeAll(some);
                    }
                } else {
                    clock.advanceMicros(random.nextInt((int) p.leaseMicros() / 2 + 1));
                }
                assertEquals(reference.peek(p, key).toCompletableFuture().join(),
                        store.peek(p, key).toCompletableFuture().join(),
                        where);
            }
        }
    }

    private static List<long[]> pick(Random random, List<long[]> held) {
        List<long[]> some = new ArrayList<>();
        for (long[] lease : held) {
            if (random.nextBoolean()) {
                some.add(lease);
            }
        }
        if (random.nextInt(4) == 0) {
            long never = -1 - random.nextInt(1000); // a lease never granted: lost
            some.add(new long[] { never, never });
        }
        return some;
    }

    // keys hold state only while a call is in flight; beyond max-keys keys in flight a new key is refused, and one
    // whose calls ended makes room again
    @Test
    void keysInFlightAreBoundedAndFreedWhenTheirCallsEnd() {
        ManualClock clock = new ManualClock();
        MemoryStore store = new MemoryStore(clock, 3);
        Policy p = Policy.inFlight("exports", 2, 30_000_000, "ip");
        List<Decision> leases = new ArrayList<>();
        for (int k = 0; k < 3; k++) {
            leases.add(store.enter(p, "k" + k, 0).toCompletableFuture().join());
            assertTrue(leases.get(k).allowed());
        }
        assertEquals(3L, store.count(p).toCompletableFuture().join());
        Decision full = store.enter(p, "k3", 0).toCompletableFuture().join();
        assertFalse(full.allowed(), "a fourth key in flight is refused: " + full);
        assertTrue(store.enter(p, "k0", 0).toCompletableFuture().join().allowed(), "a key in flight takes its second slot");
        assertEquals(List.of(), store.leave(p, "k1", List.of(leases.get(1).atMicros())).toCompletableFuture().join());
        assertEquals(2L, store.count(p).toCompletableFuture().join(), "a key whose calls all ended holds nothing");
        assertTrue(store.enter(p, "k3", 0).toCompletableFuture().join().allowed(), "room again");
        clock.advanceMicros(30_000_000);
        assertEquals(0L, store.count(p).toCompletableFuture().join(), "leases not renewed expired");
        for (int k = 4; k < 7; k++) {
            assertTrue(store.enter(p, "k" + k, 0).toCompletableFuture().join().allowed(), "expired keys make room");
        }
    }
}
