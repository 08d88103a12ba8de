package dev.slidegate.testing;

import jakarta.enterprise.inject.Alternative;
import jakarta.inject.Singleton;

import dev.slidegate.core.Clock;

/**
 * The clock of in-process stores and of override expiry, set by the test: select it with
 * {@code quarkus.arc.selected-alternatives}. One clock for the JVM, so a test reaches it statically.
 */
@Alternative
@Singleton
public class SettableClock implements Clock {

    /** The clock every application started with this alternative reads. */
    public static final ManualClock CLOCK = new ManualClock();

    @Override
    public long nowMicros() {
        return CLOCK.nowMicros();
    }
}
