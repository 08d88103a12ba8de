package dev.slidegate.testing;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import org.opentest4j.AssertionFailedError;

/**
 * Waits for a condition instead of sleeping for a guessed time: asks {@code probe} every 20 ms until {@code done}
 * accepts what it answers, and returns that answer; fails, saying what was awaited and the last answer, when
 * {@code within} has passed. The time is a bound on a machine that may be slow, never a claim about the product.
 */
public final class Eventually {

    /** A probe that may throw (an HTTP call, a Redis command). */
    @FunctionalInterface
    public interface Probe<T> {
        T get() throws Exception;
    }

    private Eventually() {
    }

    public static <T> T eventually(Duration within, Probe<T> probe, Predicate<? super T> done, String what) {
        long deadline = System.nanoTime() + within.toNanos();
        T last = null;
        Exception failure = null;
        while (true) {
            try {
                last = probe.get();
                failure = null;
                if (done.test(last)) {
                    return last;
                }
            } catch (Exception e) {
                failure = e;
            }
            if (System.nanoTime() - deadline > 0) {
                AssertionFailedError error = new AssertionFailedError(
                        what + ": not within " + within.toMillis() + " ms; last seen: " + last);
                if (failure != null) {
                    error.initCause(failure);
                }
                throw error;
            }
            try {
                TimeUnit.MILLISECONDS.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionFailedError(what + ": interrupted", e);
            }
        }
    }
}
