package dev.slidegate.core;

/**
 * Where in-process stores get "now": microseconds since the epoch that never go backwards.
 *
 * <p>
 * Algorithms never read a clock themselves; stores read it once per decision and pass the value
 * down, so tests can set time to the microsecond. The Redis store does not use it: there the clock is
 * the Redis server's {@code TIME}.
 */
@FunctionalInterface
public interface Clock {

    /** Microseconds since the epoch; successive calls never return a smaller value. */
    long nowMicros();

    /**
     * The system clock: the wall clock read once at creation, advanced by {@link System#nanoTime()}, so
     * it is epoch aligned (fixed windows start on whole seconds) and cannot step backwards when the
     * wall clock is adjusted.
     */
    static Clock system() {
        long originMicros = System.currentTimeMillis() * 1000;
        long originNanos = System.nanoTime();
        return () -> originMicros + (System.nanoTime() - originNanos) / 1000;
    }
}
