package dev.slidegate.core;

import dev.slidegate.api.Policy;

/**
 * One hot key kept at hand by a store or decorator, with what it found for it: a call of the same policy object and an
 * equal key uses {@code value} with one comparison instead of its map lookups. The key's hash only screens; {@code equals}
 * decides, so a key of the same hash is never taken for another. Immutable: a holder publishes a new one through a
 * volatile field and replaces it rarely ({@link #keptFor}).
 *
 * @param <V> what was found for the key
 * @param policy the policy object the key was called with (compared by identity)
 * @param key the key
 * @param hash the key's hash
 * @param value what was found for it
 * @param since when it was kept, on the holder's clock
 */
public record KeptKey<V>(Policy policy, String key, int hash, V value, long since) {

    public static <V> KeptKey<V> of(Policy policy, String key, V value, long now) {
        return new KeptKey<>(policy, key, key.hashCode(), value, now);
    }

    /** Whether a call of {@code p} for {@code k} is this key's. */
    public boolean holds(Policy p, String k) {
        return policy == p && hash == k.hashCode() && (key == k || key.equals(k));
    }

    /** Whether it has been kept for {@code atLeast} by {@code now} (or the clock stepped back since). */
    public boolean keptFor(long now, long atLeast) {
        return now - since >= atLeast || now < since;
    }
}
