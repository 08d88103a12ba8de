package dev.slidegate.core;

/**
 * The one time source of an instance: microseconds since the epoch that never go backwards, and a
 * monotonic nanosecond reading for durations. Everything that reads time takes it from here (in-process
 * decisions, the breaker's cool-down, the Redis store's deadlines ({@link #ioNanoTime}), remembered refusals, the instance
 * count, override expiry, the admin's caches), so a test that sets it moves them all, and instances of
 * one test can run on clocks seconds apart.
 *
 * <p>
 * Algorithms never read a clock themselves; stores read it once per decision and pass the value down,
 * so tests can set time to the microsecond. Windows on Redis do not use it: there the clock is the
 * Redis server's {@code TIME}, the same for every instance.
 */
@FunctionalInterface
public interface Clock {

    /** Microseconds since the epoch; successive calls never return a smaller value. */
    long nowMicros();

    /**
     * A monotonic reading in nanoseconds, for durations only (deadlines, cool-downs, ages): its origin
     * means nothing. A settable clock derives it from {@link #nowMicros()}.
     */
    default long nanoTime() {
        return nowMicros() * 1000;
    }

    /**
     * A monotonic reading of real time in nanoseconds, for waiting on I/O: a remote store's deadlines and late limit,
     * which its client's timers keep in real time. A server that does not answer must time out whatever a test does
     * with {@link #nowMicros()}: under a clock that stands still between a test's moves (the test kit's), a frozen
     * Redis would otherwise never time out. The {@link #system()} clock's reading, for every clock.
     */
    default long ioNanoTime() {
        return RealTime.CLOCK.nanoTime();
    }

    /**
     * How far a test has moved this clock ahead of where it started (0 for every clock but a test's): windows kept on
     * Redis, which count by the server's {@code TIME}, are moved as far ahead (the scripts add it to {@code TIME}), so a
     * test that advances the clock refills them as it refills windows kept in process.
     */
    default long aheadMicros() {
        return 0;
    }

    /**
     * The system clock: the wall clock read once at creation, advanced by {@link System#nanoTime()}, so
     * it is epoch aligned (fixed windows start on whole seconds) and cannot step backwards when the
     * wall clock is adjusted.
     */
    static Clock system() {
        long originMicros = System.currentTimeMillis() * 1000;
        long originNanos = System.nanoTime();
        return new Clock() {
            @Override
            public long nowMicros() {
                return originMicros + (System.nanoTime() - originNanos) / 1000;
            }

            @Override
            public long nanoTime() {
                return System.nanoTime();
            }
        };
    }
}
