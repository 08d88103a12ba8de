package dev.slidegate.testkit;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

import jakarta.enterprise.inject.Alternative;
import jakarta.inject.Singleton;

import dev.slidegate.core.Clock;

/**
 * Slidegate's clock in a service's tests: it stands still until a test moves it ({@link #advance}), so a test refills
 * a window by advancing the clock, never by sleeping. Nothing selects it but the service's test configuration:
 *
 * <pre>
 * %test.quarkus.arc.selected-alternatives=dev.slidegate.testkit.TestClock
 * </pre>
 *
 * (It has no priority: an alternative with one would be on in every service that has Slidegate.) It moves everything that reads
 * Slidegate's clock: in-process windows, waits (a waiting call is released when the
 * clock reaches its permit), leases, upstream holds, settlements, calendar periods and override expiry. Windows kept on
 * Redis count by the Redis server's own clock, which goes on in real time: an advance moves them as far ahead too (every
 * script adds it to the server's {@code TIME}), so a window kept there refills as one kept in process does. One clock for the
 * JVM: it starts at 2026-01-01T00:00:00Z, where every whole second, minute,
 * hour and day begins, and never goes back.
 */
@Alternative
@Singleton
public class TestClock implements Clock {

    /** 2026-01-01T00:00:00Z in microseconds since the epoch: the instant the clock starts at. */
    public static final long START_MICROS = 1_767_225_600_000_000L;

    private static final AtomicLong NOW = new AtomicLong(START_MICROS);

    /**
     * Moves the clock forward.
     *
     * @throws IllegalArgumentException for a negative duration: Slidegate's time never goes back
     */
    public static void advance(Duration d) {
        if (d.isNegative()) {
            throw new IllegalArgumentException("the test clock moves forward only, not by " + d);
        }
        NOW.addAndGet(d.toNanos() / 1000);
    }

    /** The clock's instant now. */
    public static Instant now() {
        long micros = NOW.get();
        return Instant.ofEpochSecond(micros / 1_000_000, micros % 1_000_000 * 1000);
    }

    /**
     * @throws io.quarkus.runtime.configuration.ConfigurationException outside tests: a service whose Slidegate time
     *         stood still would never refill a window
     */
    public TestClock() {
        if (io.quarkus.runtime.LaunchMode.current() != io.quarkus.runtime.LaunchMode.TEST) {
            throw new io.quarkus.runtime.configuration.ConfigurationException("Invalid Slidegate configuration: "
                    + "dev.slidegate.testkit.TestClock is selected (quarkus.arc.selected-alternatives) outside tests, "
                    + "where Slidegate's time would stand still and no window would refill: select it for tests only "
                    + "(%test.quarkus.arc.selected-alternatives=dev.slidegate.testkit.TestClock)");
        }
    }

    @Override
    public long nowMicros() {
        return NOW.get();
    }

    /** How far the tests moved the clock: windows kept on Redis are moved as far. */
    @Override
    public long aheadMicros() {
        return NOW.get() - START_MICROS;
    }
}
