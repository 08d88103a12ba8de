package dev.slidegate.redis;

/**
 * How late Redis has answered lately, so that a silence is judged against it: the longest answer time
 * of the current and the previous period (each {@code periodNanos} long). A store that answered within
 * 2 ms for the last seconds and then says nothing for 50 ms is probably down; one that has taken up to
 * 80 ms per answer while the machine is busy is not, after 80 ms of silence.
 *
 * <p>
 * Lock-free and approximate under races (a sample may be lost when a period turns over), which only
 * shortens the patience by one sample. Times are {@code System.nanoTime()} values passed in, so tests
 * drive it with their own clock.
 */
final class RecentLatency {

    private final long periodNanos;
    private volatile long periodStart;
    private volatile long currentMax;
    private volatile long previousMax;

    RecentLatency(long periodNanos, long now) {
        this.periodNanos = periodNanos;
        this.periodStart = now;
    }

    /** An answer arrived {@code latency} after its request was sent. */
    void record(long now, long latency) {
        turn(now);
        if (latency > currentMax) {
            currentMax = latency;
        }
    }

    /** The longest answer time of the current and the previous period (0 when none was seen). */
    long max(long now) {
        turn(now);
        return Math.max(currentMax, previousMax);
    }

    private void turn(long now) {
        long start = periodStart;
        if (now - start < periodNanos) {
            return;
        }
        synchronized (this) {
            start = periodStart;
            if (now - start < periodNanos) {
                return;
            }
            previousMax = now - start < 2 * periodNanos ? currentMax : 0;
            currentMax = 0;
            periodStart = now;
        }
    }
}
