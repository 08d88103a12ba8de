package dev.slidegate.testing;

import java.util.concurrent.atomic.AtomicLong;

import dev.slidegate.core.Clock;

/**
 * The system clock moved ahead by what a test sets: a Redis store built with it reads the server's {@code TIME} plus the
 * same distance in every script ({@link Clock#aheadMicros}), so the windows kept in Redis move as far, without sleeping.
 */
public final class MovedClock implements Clock {

    private final Clock system = Clock.system();
    private final AtomicLong ahead;

    /** @param ahead how far ahead, in microseconds; the test moves it */
    public MovedClock(AtomicLong ahead) {
        this.ahead = ahead;
    }

    @Override
    public long nowMicros() {
        return system.nowMicros() + ahead.get();
    }

    @Override
    public long aheadMicros() {
        return ahead.get();
    }
}
