package dev.slidegate.core;

import java.util.function.LongSupplier;

/**
 * Where instants of a shared store's clock (Redis {@code TIME}) fall on this instance's monotonic clock, learned from the
 * store's own answers.
 *
 * <p>
 * A held call sleeps until its permit's instant, and runs on it only within {@code slidegate.wait.late-tolerance} after
 * it. The store decides at some instant between the asking and the answer's arrival, so the call alone knows its permit
 * only to within its answer's round trip: it sleeps from the arrival (never early) and judges its lateness from the
 * asking (never too kind). An answer that took longer than the tolerance (a loaded instance or Redis: every answer of a
 * burst) made its call late for certain: it waited its whole wait, was decided again behind every call placed meanwhile,
 * and its permit stayed unused in its window (UpstreamFleetIT on a loaded machine: answers 50 to 180 ms after their
 * asking, every held call of the burst woke late, and a provider's quota sat unused a second and more).
 *
 * <p>
 * Every answer says the instant the store decided at on its own clock, and was asked and read at two instants of this
 * one's: the store's clock minus this instance's lies between (decided - read) and (decided - asked). The narrowest
 * such bounds of the answers so far, each widened by the drift two clocks may have had since
 * ({@value #DRIFT_PPM} ppm of its age: the most Linux slews a clock), place a permit's instant on this instance's clock
 * to within one quick answer's round trip, however late its own answer came. A store whose answers contradict the
 * bounds (its clock was set) starts them anew from that answer; a step smaller than the bounds' width goes unseen, as it
 * moves the store's own windows by as much. A store of several clocks (a Redis Cluster's nodes) learns nothing:
 * {@link #unknown()}.
 */
public final class PermitInstants {

    /** How fast two clocks may drift apart, in parts per million: the most Linux (NTP) slews a clock. */
    static final long DRIFT_PPM = 500;

    private static final PermitInstants UNKNOWN = new PermitInstants(null);

    private final LongSupplier nanoTime;
    /** The store's clock minus this instance's, in µs: at least {@code low} when learned at {@code lowAt} (ns). */
    private long low = Long.MIN_VALUE;
    private long lowAt;
    /** ... and at most {@code high}, learned at {@code highAt}. */
    private long high = Long.MAX_VALUE;
    private long highAt;

    /** @param nanoTime this instance's monotonic clock, the one its held calls sleep on */
    public PermitInstants(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
    }

    /** A store whose clock is not learned (the in-process store's is this instance's; a cluster has several). */
    public static PermitInstants unknown() {
        return UNKNOWN;
    }

    /**
     * An answer of the store: asked at {@code askedNanos}, read at {@code readNanos} (this instance's monotonic clock),
     * decided at {@code storeMicros} on the store's clock.
     */
    public void answered(long askedNanos, long readNanos, long storeMicros) {
        if (nanoTime == null) {
            return;
        }
        long lo = storeMicros - Math.floorDiv(readNanos, 1000) - 1; // (the store's clock counts whole µs)
        long hi = storeMicros - Math.floorDiv(askedNanos, 1000) + 1;
        synchronized (this) {
            long nowLow = lowNow(readNanos);
            long nowHigh = highNow(readNanos);
            if (lo > nowHigh || hi < nowLow) { // the clocks moved apart faster than they drift: one was set
                low = lo;
                lowAt = readNanos;
                high = hi;
                highAt = readNanos;
                return;
            }
            if (lo >= nowLow) {
                low = lo;
                lowAt = readNanos;
            }
            if (hi <= nowHigh) {
                high = hi;
                highAt = readNanos;
            }
        }
    }

    /**
     * The latest instant of this instance's monotonic clock (ns) that {@code storeMicros} on the store's clock can be;
     * {@link Long#MAX_VALUE} when not known.
     */
    public long latestNanos(long storeMicros) {
        if (nanoTime == null) {
            return Long.MAX_VALUE;
        }
        long now = nanoTime.getAsLong();
        long lo;
        synchronized (this) {
            lo = lowNow(now);
        }
        if (lo == Long.MIN_VALUE) {
            return Long.MAX_VALUE;
        }
        long at = (storeMicros - lo) * 1000;
        return at + drift(at - now) * 1000; // the two clocks drift until then too
    }

    /**
     * The earliest instant of this instance's monotonic clock (ns) that {@code storeMicros} on the store's clock can be;
     * {@link Long#MIN_VALUE} when not known.
     */
    public long earliestNanos(long storeMicros) {
        if (nanoTime == null) {
            return Long.MIN_VALUE;
        }
        long now = nanoTime.getAsLong();
        long hi;
        synchronized (this) {
            hi = highNow(now);
        }
        if (hi == Long.MAX_VALUE) {
            return Long.MIN_VALUE;
        }
        long at = (storeMicros - hi) * 1000;
        return at - drift(at - now) * 1000;
    }

    private long lowNow(long now) {
        return low == Long.MIN_VALUE ? Long.MIN_VALUE : low - drift(now - lowAt);
    }

    private long highNow(long now) {
        return high == Long.MAX_VALUE ? Long.MAX_VALUE : high + drift(now - highAt);
    }

    /** The µs two clocks may have drifted apart in {@code nanos} (at least 1: never less than a tick). */
    static long drift(long nanos) {
        return Math.max(0, nanos) / (1_000_000_000L / DRIFT_PPM) + 1;
    }
}
