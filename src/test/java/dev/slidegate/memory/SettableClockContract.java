package dev.slidegate.memory;

import dev.slidegate.core.StoreContract;
import dev.slidegate.testing.ManualClock;

/** The scenarios on a settable clock: exact to the microsecond, no sleeping. */
abstract class SettableClockContract extends StoreContract {

    protected final ManualClock clock = new ManualClock();

    @Override
    protected void advance(long micros) {
        clock.advanceMicros(micros);
    }

    @Override
    protected long w() {
        return 1_000_000;
    }

    @Override
    protected long edge() {
        return 1;
    }

    @Override
    protected void alignTo(long window) {
        long now = clock.nowMicros();
        long next = (now + window - 1) / window * window;
        clock.set(next + edge());
    }

    @Override
    protected boolean exactTime() {
        return true;
    }
}
