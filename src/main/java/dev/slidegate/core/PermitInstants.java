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
 * A reading of the store's clock ({@link #timed}: Redis {@code TIME}, which the instance reads every few seconds) was
 * asked and read at two instants of this instance's clock: the store's clock minus this instance's lies between
 * (time - read) and (time - asked). A decision ({@link #decided}) tells one side only: the instant it reports is the
 * store's time or later (a script places a call no earlier than the key's newest entry, one microsecond apart), so
 * (decided - asked) bounds the difference from above, and a permit's lateness is judged no more kindly for it. The
 * narrowest bounds so far, each widened by the drift two clocks may have had since and until the permit
 * ({@value #DRIFT_PPM} ppm: the most Linux slews a clock), place a permit's instant on this instance's clock to within
 * a quick reading's round trip, however late its own answer came. A reading or a decision that contradicts the bounds
 * (the store's clock was set back, or a failover brought a server with another clock) starts them anew from itself; a
 * step smaller than the bounds' width goes unseen, as it moves the store's own windows by as much. A store of several
 * clocks (a Redis Cluster's nodes) learns nothing: {@link #unknown()}.
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
     * A reading of the store's clock: asked at {@code askedNanos}, read at {@code readNanos} (this instance's monotonic
     * clock), the store's time {@code timeMicros} (Redis {@code TIME}).
     */
    public void timed(long askedNanos, long readNanos, long timeMicros) {
        if (nanoTime == null) {
            return;
        }
        long lo = timeMicros - Math.floorDiv(readNanos, 1000) - 1; // (the store's clock counts whole µs)
        long hi = timeMicros - Math.floorDiv(askedNanos, 1000) + 1;
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
     * A decision of the store, asked at {@code askedNanos}, that reported {@code storeMicros} as the instant it decided at:
     * the store's time then, or later (never earlier). It bounds the store's clock minus this instance's from above only.
     */
    public void decided(long askedNanos, long storeMicros) {
        if (nanoTime == null) {
            return;
        }
        long hi = storeMicros - Math.floorDiv(askedNanos, 1000) + 1;
        long now = nanoTime.getAsLong();
        synchronized (this) {
            if (hi < lowNow(now)) { // the store's clock is behind what it read before: it was set back, or another server
                low = Long.MIN_VALUE;
                high = hi;
                highAt = now;
            } else if (hi <= highNow(now)) {
                high = hi;
                highAt = now;
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
