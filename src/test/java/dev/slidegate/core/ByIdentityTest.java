package dev.slidegate.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

/** The identity cache behind the store's policy windows, the RateLimit fields' text and each connection's client. */
class ByIdentityTest {

    // equal objects are different keys: what is remembered for one is never answered for another
    @Test
    void equalButDistinctObjectsNeverShareAValue() {
        AtomicInteger made = new AtomicInteger();
        ByIdentity<String, Integer> cache = new ByIdentity<>(s -> made.incrementAndGet());
        String one = new String("peer");
        String other = new String("peer");
        int first = cache.get(one);
        assertEquals(first, cache.get(one), "the same object: made once");
        assertEquals(1, made.get());
        List<String> many = new ArrayList<>();
        for (int i = 0; i < 1000; i++) { // whatever slot they take, each object gets only what was made for it
            many.add(new String("peer"));
        }
        ByIdentity<String, String> filled = new ByIdentity<>(256, null);
        for (String s : many) {
            filled.put(s, Integer.toHexString(System.identityHashCode(s)));
        }
        for (String s : many) {
            String v = filled.find(s);
            if (v != null) {
                assertEquals(Integer.toHexString(System.identityHashCode(s)), v);
            }
        }
        assertNull(filled.find(other), "never put");
        assertSame(null, new ByIdentity<String, String>(8, null).find(one));
    }

    // two objects whose first slots collide both stay remembered: alternating lookups make each once (a one-way table
    // made both again on every call: two hot policies sharing a slot allocated on every decision)
    @Test
    void twoObjectsSharingAFirstSlotAreBothRemembered() {
        Object first = new Object();
        Object other = sharingFirstSlot(first,
                (a, b) -> (((a * 0x9E3779B9) >>> 16) & 63) != (((b * 0x9E3779B9) >>> 16) & 63));
        AtomicInteger made = new AtomicInteger();
        ByIdentity<Object, Integer> cache = takenInTurns(first, other, made);
        assertEquals(2, made.get(), "each made once");
        assertEquals(1, cache.find(first));
        assertEquals(2, cache.find(other));
    }

    // an object whose mixed hash falls on its own first slot still has a second place: one sharing its first slot with
    // another object does not evict it (it did, 1 pair in 64: a flaky run of the test above)
    @Test
    void anObjectWhoseSecondSlotWouldBeItsFirstStillHasTwo() {
        Object first = new Object();
        Object other = sharingFirstSlot(first, (a, b) -> (((b * 0x9E3779B9) >>> 16) & 63) == (b & 63));
        AtomicInteger made = new AtomicInteger();
        takenInTurns(first, other, made);
        assertEquals(2, made.get(), "each made once");
    }

    /** A new object whose first slot (of 64) is {@code first}'s, and whose identity hash {@code b} meets {@code also}. */
    private static Object sharingFirstSlot(Object first, java.util.function.BiPredicate<Integer, Integer> also) {
        int a = System.identityHashCode(first);
        while (true) {
            Object candidate = new Object();
            int b = System.identityHashCode(candidate);
            if ((a & 63) == (b & 63) && also.test(a, b)) {
                return candidate;
            }
        }
    }

    /** A cache that counts what it makes in {@code made}, asked for the two objects in turn, 100 times each. */
    private static ByIdentity<Object, Integer> takenInTurns(Object first, Object other, AtomicInteger made) {
        ByIdentity<Object, Integer> cache = new ByIdentity<>(o -> made.incrementAndGet());
        for (int i = 0; i < 100; i++) {
            cache.get(first);
            cache.get(other);
        }
        return cache;
    }

    @Test
    void theTableIsAPowerOfTwo() {
        assertThrows(IllegalArgumentException.class, () -> new ByIdentity<String, String>(100, null));
    }
}
