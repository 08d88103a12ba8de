package dev.slidegate.testing;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Offers a paced load to a limiter from several threads and records the instant of every admitted
 * call, then measures it with the {@link Oracle}: the same load for every limiter compared.
 */
public final class LoadOracle {

    private LoadOracle() {
    }

    /** One attempt: the instant (microseconds) the limiter admitted the call at, or -1 when refused. */
    @FunctionalInterface
    public interface Attempt {
        long tryAdmit();
    }

    /**
     * What a run measured.
     *
     * @param maxInAnyWindow the most admitted in any interval of length W
     * @param perWindow admitted in each full window after the first admission
     * @param meanFraction the mean of {@code perWindow} as a fraction of N
     */
    public record Result(int maxInAnyWindow, int[] perWindow, double meanFraction) {

        @Override
        public String toString() {
            return "max " + maxInAnyWindow + ", per window " + Arrays.toString(perWindow) + String.format(", mean %.2f N", meanFraction);
        }
    }

    /** {@code threads} threads together offer 3N per window for {@code windows} windows. */
    public static Result offer(Attempt attempt, int n, long windowMicros, int windows, int threads) throws InterruptedException {
        ConcurrentLinkedQueue<Long> admitted = new ConcurrentLinkedQueue<>();
        long perThread = 3L * n * windows / threads;
        long intervalNanos = windowMicros * 1000 * windows / perThread;
        CountDownLatch done = new CountDownLatch(threads);
        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
        List<Thread> running = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            long offset = intervalNanos * t / threads;
            Thread th = new Thread(() -> {
                try {
                    for (long i = 0; i < perThread; i++) {
                        long wait = start + offset + i * intervalNanos - System.nanoTime();
                        if (wait > 0) {
                            LockSupport.parkNanos(wait);
                        }
                        long at = attempt.tryAdmit();
                        if (at >= 0) {
                            admitted.add(at);
                        }
                    }
                } finally {
                    done.countDown();
                }
            });
            th.start();
            running.add(th);
        }
        if (!done.await(windows * windowMicros / 1000 * 10 + 60_000, TimeUnit.MILLISECONDS)) {
            running.forEach(Thread::interrupt);
            throw new IllegalStateException("the load did not finish");
        }
        long[] instants = admitted.stream().mapToLong(Long::longValue).toArray();
        if (instants.length == 0) {
            return new Result(0, new int[0], 0);
        }
        long first = Arrays.stream(instants).min().getAsLong();
        int[] per = Oracle.perWindow(instants, first, windowMicros, windows - 1);
        double mean = Arrays.stream(per).average().orElse(0) / n;
        return new Result(Oracle.maxInAnyWindow(instants, windowMicros), per, mean);
    }
}
