package dev.slidegate.core;

import java.util.function.Function;

/**
 * What was made once for an object, remembered by the object's identity, for objects their callers hold for good (a
 * policy, a connection's peer address): a lookup hashes nothing and compares one or two references. A small fixed
 * table, two-way: each object has two slots (from its identity hash, and from that hash mixed), so two objects whose
 * first slots collide both stay remembered instead of evicting each other on every call (a measured cliff: two hot
 * policies sharing a slot made a decision allocate and hash their names again each time); an object is forgotten
 * only when both its slots are wanted by others. Entries are immutable, so a plain array publishes them safely
 * between threads, and a forgotten one is merely made again. Filled either by a function ({@link #get}) or by its
 * caller ({@link #find}, {@link #put}).
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
        V found = find(key);
        if (found != null) {
            return found;
        }
        V made = make.apply(key);
        put(key, made);
        return made;
    }

    /** What was put for {@code key} and is still remembered, or {@code null}. */
    public V find(K key) {
        int h = System.identityHashCode(key);
        Entry<K, V> e = table[h & (table.length - 1)];
        if (e != null && e.key() == key) {
            return e.value();
        }
        e = table[second(h)];
        return e != null && e.key() == key ? e.value() : null;
    }

    /**
     * Remembers {@code value} for {@code key}: in its first slot if that is free or already its own, else in its second
     * (in place of whatever held it).
     */
    public void put(K key, V value) {
        int h = System.identityHashCode(key);
        int first = h & (table.length - 1);
        Entry<K, V> there = table[first];
        table[there == null || there.key() == key ? first : second(h)] = new Entry<>(key, value);
    }

    /**
     * The second slot of an identity hash: its bits mixed (Fibonacci hashing), and never the first slot itself (then its
     * neighbour), so an object always has two places: one whose second slot fell on its first had one, and was evicted
     * by any object sharing that first slot (seen as a test failure, 1 in 64 pairs).
     */
    private int second(int h) {
        int mask = table.length - 1;
        int s = ((h * 0x9E3779B9) >>> 16) & mask;
        return s == (h & mask) ? s ^ 1 : s;
    }
}
