package dev.slidegate.core;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Skips a failing store for a while. After {@code threshold} failed decisions in a row it opens:
 * callers go straight to their fail mode for {@code coolDown}; then one decision probes the store
 * (half open); its success closes it, its failure opens it again. Going open is logged once at
 * WARNING and coming back once at INFO, never per request.
 *
 * <p>
 * Every change of state happens under the breaker's monitor; the hot path (closed, a success with
 * no failures counted) reads two fields and writes nothing. A success only closes the breaker if its
 * call was sent after the breaker opened: a late answer to a call sent before is no news of recovery,
 * but it makes the next call a probe at once instead of after the cool-down (the store that answered
 * late was perhaps only slow), and that probe's success closes it.
 */
public final class Breaker {

    /** Where the breaker stands. */
    public enum State {
        CLOSED,
        OPEN,
        HALF_OPEN
    }

    private static final Logger LOG = Logger.getLogger("dev.slidegate");

    private final String what;
    private final int threshold;
    private final long coolDownNanos;
    private final LongSupplier nanoTime;
    private final AtomicInteger failures = new AtomicInteger();
    private volatile State state = State.CLOSED;
    /** When the breaker last opened (nanoTime); only calls sent at or after it can close it. */
    private volatile long openedAt = Long.MIN_VALUE;
    /** A call sent before the breaker opened was answered after it: probe now instead of after the cool-down. */
    private volatile boolean probeEarly;
    private final Consumer<State> listener;

    public Breaker(String what, int threshold, long coolDownNanos, LongSupplier nanoTime) {
        this(what, threshold, coolDownNanos, nanoTime, s -> {
        });
    }

    /**
     * @param listener told once per transition to {@link State#OPEN} (store skipped) and back to {@link State#CLOSED}; e.g.
     *        metrics
     */
    public Breaker(String what, int threshold, long coolDownNanos, LongSupplier nanoTime, Consumer<State> listener) {
        this.what = what;
        this.threshold = Math.max(1, threshold);
        this.coolDownNanos = coolDownNanos;
        this.nanoTime = nanoTime;
        this.listener = listener;
    }

    /** The breaker's clock: what callers pass back as {@code sentAt}. */
    public long now() {
        return nanoTime.getAsLong();
    }

    /** Whether this call may use the store: always when closed, once per cool-down (the probe) when open. */
    public boolean allowRequest() {
        State s = state;
        if (s == State.CLOSED) {
            return true;
        }
        if (s == State.OPEN && (probeEarly || nanoTime.getAsLong() - openedAt >= coolDownNanos)) {
            synchronized (this) {
                if (state == State.OPEN && (probeEarly || nanoTime.getAsLong() - openedAt >= coolDownNanos)) {
                    state = State.HALF_OPEN;
                    LOG.fine(what + ": probing" + (probeEarly ? " early (a call sent before opening was answered)" : ""));
                    probeEarly = false;
                    return true;
                }
            }
        }
        return false;
    }

    /** A call sent at {@code sentAt} (see {@link #now()}) succeeded. */
    public void success(long sentAt) {
        if (failures.get() != 0) {
            failures.set(0);
        }
        if (state == State.CLOSED) {
            return;
        }
        if (sentAt < openedAt) { // no news of recovery by itself, but worth a probe now rather than after the cool-down
            if (state == State.OPEN && !probeEarly) {
                probeEarly = true;
            }
            return;
        }
        synchronized (this) {
            if (state == State.CLOSED || sentAt < openedAt) {
                return;
            }
            state = State.CLOSED;
            failures.set(0);
        }
        LOG.info(what + " answers again: deciding there again");
        listener.accept(State.CLOSED);
    }

    /** A call failed (an error, or no answer within the budget while the store answered nothing). */
    public void failure(Throwable cause) {
        State s = state;
        if (s == State.OPEN) {
            return; // a straggler sent before the breaker opened
        }
        if (s == State.HALF_OPEN) {
            synchronized (this) {
                LOG.fine(() -> what + ": the probe failed (" + Secrets.redact(String.valueOf(cause.getMessage())) + ")");
                if (state == State.HALF_OPEN) { // the probe failed: skip the store for another cool-down
                    openedAt = nanoTime.getAsLong();
                    probeEarly = false;
                    state = State.OPEN;
                }
            }
            return;
        }
        if (failures.incrementAndGet() < threshold) {
            return;
        }
        synchronized (this) {
            if (state != State.CLOSED) {
                return;
            }
            openedAt = nanoTime.getAsLong();
            probeEarly = false;
            state = State.OPEN;
        }
        String why = WriteRefusals.explain(cause.getMessage());
        LOG.log(Level.WARNING, what + " failed " + threshold + " decisions in a row (" + Secrets.redact(cause.getMessage())
                + "): policies decide by their fail mode, and " + what + " is probed every " + coolDownNanos / 1_000_000
                + " ms until it answers" + (why == null ? "" : ". " + why));
        listener.accept(State.OPEN);
    }

    /** A call let through as the probe never reached the store (the caller's own mistake): the next call probes instead. */
    public void abandonProbe() {
        if (state != State.HALF_OPEN) {
            return;
        }
        synchronized (this) {
            if (state == State.HALF_OPEN) {
                state = State.OPEN; // openedAt unchanged: the cool-down is over, the next call probes
            }
        }
    }

    public State state() {
        return state;
    }
}
