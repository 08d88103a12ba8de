package dev.slidegate.engine;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

import jakarta.inject.Inject;
import jakarta.inject.Singleton;

import dev.slidegate.config.SlidegateConfig;

/**
 * The calls this instance holds until the instant their permits were reserved for (a policy's {@code max-wait}):
 * the waiting room that bounds them (per instance and per policy and key) and the timers that wake them. No thread
 * waits: a held call is a timer on the event loop it came from.
 *
 * <p>
 * Waits are slept on this instance's monotonic clock, from the moment the store's answer arrived: the store counted
 * them on its own clock, so a skew between the instance and the store (or Redis) does not move them, and a call
 * never runs before its permit's instant. A call that wakes later than its instant by more than
 * {@code slidegate.wait.late-tolerance} is told so ({@link #hold}'s {@code late}): its caller decides it again rather
 * than run it on a permit whose moment has passed.
 */
@Singleton
public class Waits {

    /** Runs a task after a delay. */
    public interface Timer {
        void schedule(long delayNanos, Runnable task);
    }

    /** A place in the waiting room, left exactly once. */
    public final class Place {
        private final String id;
        private boolean left;

        private Place(String id) {
            this.id = id;
        }

        /** Gives the place back (again: nothing). */
        public void leave() {
            synchronized (this) {
                if (left) {
                    return;
                }
                left = true;
            }
            waiting.decrementAndGet();
            perKey.computeIfPresent(id, (k, n) -> n.decrementAndGet() == 0 ? null : n);
        }
    }

    private final int maxWaiting;
    private final int maxPerKey;
    private final long toleranceNanos;
    private final LongSupplier nanoTime;
    private final Timer timer;
    private final AtomicInteger waiting = new AtomicInteger();
    private final ConcurrentHashMap<String, AtomicInteger> perKey = new ConcurrentHashMap<>();

    @Inject
    Waits(SlidegateConfig config, Threads threads, dev.slidegate.core.Clock clock) {
        this(config.waits().maxWaiting(), config.waits().maxWaitingPerKey(), config.waits().lateTolerance().toNanos(),
                clock::nanoTime, threads.timer());
    }

    /**
     * @param nanoTime the monotonic clock waits are slept on (the instance's {@link dev.slidegate.core.Clock}; tests jump
     *        their own)
     * @param timer what wakes a held call (a Vert.x timer, which fires on the context that set it)
     */
    public Waits(int maxWaiting, int maxPerKey, long toleranceNanos, LongSupplier nanoTime, Timer timer) {
        this.maxWaiting = maxWaiting;
        this.maxPerKey = maxPerKey;
        this.toleranceNanos = toleranceNanos;
        this.nanoTime = nanoTime;
        this.timer = timer;
    }

    /** The monotonic clock waits are counted on, in nanoseconds. */
    public long nanoTime() {
        return nanoTime.getAsLong();
    }

    /**
     * A place for one call of {@code policy} and {@code key} that may wait, or {@code null} when this instance already
     * holds {@code slidegate.wait.max-waiting} calls, or that many of this key.
     */
    public Place enter(String policy, String key) {
        if (waiting.incrementAndGet() > maxWaiting) {
            waiting.decrementAndGet();
            return null;
        }
        String id = policy + '\u0000' + key;
        boolean[] room = { false };
        perKey.compute(id, (k, n) -> {
            AtomicInteger count = n == null ? new AtomicInteger() : n;
            room[0] = count.get() < maxPerKey;
            if (room[0]) {
                count.incrementAndGet();
            }
            return count.get() == 0 ? null : count;
        });
        if (!room[0]) {
            waiting.decrementAndGet();
            return null;
        }
        return new Place(id);
    }

    /** How many calls this instance holds waiting now (or is deciding with a wait allowed). */
    public int waiting() {
        return waiting.get();
    }

    /**
     * Runs {@code onTime} once the monotonic clock reaches {@code deadlineNanos} (never before it), or {@code late}
     * instead when it wakes more than the late tolerance after {@code earliestNanos}, the earliest instant its permit can
     * be (at most the deadline: a wait counted from when the store was asked, where the deadline counts it from the
     * answer's arrival).
     */
    public void hold(long deadlineNanos, long earliestNanos, Runnable onTime, Runnable late) {
        long delay = deadlineNanos - nanoTime.getAsLong();
        if (delay <= 0) {
            if (late(earliestNanos)) {
                late.run();
            } else {
                onTime.run();
            }
            return;
        }
        timer.schedule(delay, () -> wake(deadlineNanos, earliestNanos, onTime, late));
    }

    /**
     * Whether a call whose permit is at {@code earliestNanos} or later would now run later than the late tolerance after
     * it: asked again where it is resumed and where it starts (its caller's context, or the thread that runs it, may come
     * a while after the timer fired), so the tolerance holds where the call runs.
     */
    public boolean late(long earliestNanos) {
        return nanoTime.getAsLong() - earliestNanos > toleranceNanos;
    }

    private void wake(long deadlineNanos, long earliestNanos, Runnable onTime, Runnable late) {
        long now = nanoTime.getAsLong();
        if (now < deadlineNanos) { // a timer that fired early: sleep the rest
            timer.schedule(deadlineNanos - now, () -> wake(deadlineNanos, earliestNanos, onTime, late));
        } else if (now - earliestNanos > toleranceNanos) {
            late.run();
        } else {
            onTime.run();
        }
    }
}
