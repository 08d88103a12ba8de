package dev.slidegate.core;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Skips a failing store for a while. After {@code threshold} failed decisions in a row it opens:
 * callers go straight to their fail mode for {@code coolDown}; then one decision probes the store
 * (half open); success closes it, failure opens it again. Going open is logged once at WARNING and
 * coming back once at INFO, never per request.
 */
public final class Breaker {

    /** Where the breaker stands. */
    public enum State {
        CLOSED, OPEN, HALF_OPEN
    }

    private static final Logger LOG = Logger.getLogger("dev.slidegate");

    private final String what;
    private final int threshold;
    private final long coolDownNanos;
    private final LongSupplier nanoTime;
    private final AtomicInteger failures = new AtomicInteger();
    private final AtomicBoolean probing = new AtomicBoolean();
    private volatile State state = State.CLOSED;
    private volatile long openedAt;

    private volatile java.util.function.Consumer<State> listener = s -> {
    };

    public Breaker(String what, int threshold, long coolDownNanos, LongSupplier nanoTime) {
        this.what = what;
        this.threshold = Math.max(1, threshold);
        this.coolDownNanos = coolDownNanos;
        this.nanoTime = nanoTime;
    }

    /** Whether this call may use the store: always when closed, once per cool-down (the probe) when open. */
    public boolean allowRequest() {
        State s = state;
        if (s == State.CLOSED) {
            return true;
        }
        if (s == State.OPEN && nanoTime.getAsLong() - openedAt >= coolDownNanos && probing.compareAndSet(false, true)) {
            state = State.HALF_OPEN;
            return true;
        }
        return false;
    }

    public void success() {
        failures.set(0);
        if (state != State.CLOSED) {
            state = State.CLOSED;
            probing.set(false);
            LOG.info(what + " answers again: deciding there again");
            listener.accept(State.CLOSED);
        }
    }

    /** Called once per transition to {@link State#OPEN} (store skipped) and back to {@link State#CLOSED}; e.g. for metrics. */
    public void onTransition(java.util.function.Consumer<State> listener) {
        this.listener = listener;
    }

    public void failure(Throwable cause) {
        if (state == State.HALF_OPEN) {
            openedAt = nanoTime.getAsLong();
            state = State.OPEN;
            probing.set(false);
            return;
        }
        if (failures.incrementAndGet() >= threshold && state == State.CLOSED) {
            synchronized (this) {
                if (state == State.CLOSED) {
                    openedAt = nanoTime.getAsLong();
                    state = State.OPEN;
                    LOG.log(Level.WARNING, what + " failed " + threshold + " decisions in a row (" + Secrets.redact(cause.getMessage())
                            + "): policies decide by their fail mode, and " + what + " is probed every "
                            + coolDownNanos / 1_000_000 + " ms until it answers");
                    listener.accept(State.OPEN);
                }
            }
        }
    }

    public State state() {
        return state;
    }
}
