package dev.slidegate.testing;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import dev.slidegate.core.Clock;

/** A clock that moves only when a test moves it. Starts at an instant aligned to every window used in tests. */
public final class ManualClock implements Clock {

    /** 2026-01-01T00:00:00Z: a multiple of every whole-second, minute, hour and day window. */
    public static final long START = 1_767_225_600_000_000L;
    private final AtomicLong now = new AtomicLong(START);

    @Override
    public long nowMicros() {
        return now.get();
    }

    public void advance(Duration d) {
        now.addAndGet(d.toNanos() / 1000);
    }

    public void advanceMicros(long micros) {
        now.addAndGet(micros);
    }

    /** Sets the time, possibly backwards: stores must never let time step back for a key. */
    public void set(long micros) {
        now.set(micros);
    }
}
