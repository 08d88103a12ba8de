package dev.slidegate.core;

import java.util.function.Function;

/**
 * What was made once for an object, remembered by the object's identity, for objects their callers hold for good (a
 * policy, a connection's peer address): a lookup hashes nothing and compares one reference. A small fixed table;
 * entries are immutable, so a plain array publishes them safely between threads, and a slot two objects share is
 * merely made again. Filled either by a function ({@link #get}) or by its caller ({@link #find}, {@link #put}).
 *
 * @param <K> the objects
 * @param <V> what is made for each
 */
public final class ByIdentity<K, V> {

    private static final int SLOTS = 64;

    private record Entry<K, V>(K key, V value) {
    }

    private final Function<K, V> make;
    private final Entry<K, V>[] table;

    /** @param make what to remember for an object not seen lately */
    public ByIdentity(Function<K, V> make) {
        this(SLOTS, make);
    }

    /**
     * @param slots the table's size, a power of two
     * @param make what to remember for an object not seen lately ({@code null}: only {@link #put} fills the table)
     */
    @SuppressWarnings("unchecked")
    public ByIdentity(int slots, Function<K, V> make) {
        if (Integer.bitCount(slots) != 1) {
            throw new IllegalArgumentException("slots must be a power of two, was " + slots);
        }
        this.make = make;
        this.table = new Entry[slots];
    }

    public V get(K key) {
        int slot = slot(key);
        Entry<K, V> e = table[slot];
        if (e == null || e.key() != key) {
            e = new Entry<>(key, make.apply(key));
            table[slot] = e;
        }
        return e.value();
    }

    /** What was put for {@code key} and is still remembered, or {@code null}. */
    public V find(K key) {
        Entry<K, V> e = table[slot(key)];
        return e != null && e.key() == key ? e.value() : null;
    }

    /** Remembers {@code value} for {@code key}, in place of whatever shared its slot. */
    public void put(K key, V value) {
        table[slot(key)] = new Entry<>(key, value);
    }

    private int slot(K key) {
        return System.identityHashCode(key) & (table.length - 1);
    }
}
