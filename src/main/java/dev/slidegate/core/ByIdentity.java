package dev.slidegate.core;

import java.util.function.Function;

/**
 * What was made once for an object, remembered by the object's identity, for objects their callers hold for good (a
 * policy): a lookup hashes nothing and compares one reference. A small fixed table; entries are immutable, so a plain
 * array publishes them safely between threads, and a slot two objects share is merely made again.
 *
 * @param <K> the objects
 * @param <V> what is made for each
 */
public final class ByIdentity<K, V> {

    private static final int SLOTS = 64;

    private record Entry<K, V>(K key, V value) {
    }

    private final Function<K, V> make;
    @SuppressWarnings("unchecked")
    private final Entry<K, V>[] table = new Entry[SLOTS];

    /** @param make what to remember for an object not seen lately */
    public ByIdentity(Function<K, V> make) {
        this.make = make;
    }

    public V get(K key) {
        int slot = System.identityHashCode(key) & (SLOTS - 1);
        Entry<K, V> e = table[slot];
        if (e == null || e.key() != key) {
            e = new Entry<>(key, make.apply(key));
            table[slot] = e;
        }
        return e.value();
    }
}
