package dev.slidegate.testing;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Offers a paced load to a limiter from several threads, brackets every admitted call on the caller's
 * clock ({@link System#nanoTime()} just before and just after it) and judges the grants with the
 * {@link Brackets} oracle: the same load and the same judge for every limiter compared, Slidegate or
 * a peer, whatever instants the limiter reports about itself.
 */
public final class LoadOracle {

    private LoadOracle() {
    }

    /** One attempt: whether the limiter admitted the call. */
    @FunctionalInterface
    public interface Attempt {
        boolean tryAdmit();
    }

    /**
     * What a run measured.
     *
     * @param maxProvable the most grants whose whole bracket lies in one interval of length W: the bound
     * @param maxByAnswer the most grants answered (the bracket's end) in one interval of length W: what a
     *        naive caller-side count sees; at least {@code maxProvable}, inflated by callers descheduled
     *        around their calls
     * @param perWindow grants answered in each full window after the first grant
     * @param meanFraction the mean of {@code perWindow} as a fraction of N
     * @param grants all grants, to be judged further
     * @param refusals all refusals, each bracketed like a grant (see {@link Brackets#unjustified})
     */
    public record Result(int maxProvable, int maxByAnswer, int[] perWindow, double meanFraction, Brackets grants,
            Brackets refusals) {

        @Override
        public String toString() {
            return "max provable " + maxProvable + ", max by answer " + maxByAnswer + ", per window "
                    + Arrays.toString(perWindow)
                    + String.format(", mean %.2f N", meanFraction) + ", refused " + refusals.size();
        }
    }

    /** {@code threads} threads together offer 3N per window for {@code windows} windows. */
    public static Result offer(Attempt attempt, int n, long windowMicros, int windows, int threads)
            throws InterruptedException {
        Brackets grants = new Brackets();
        Brackets refusals = new Brackets();
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
                        long before = System.nanoTime();
                        if (attempt.tryAdmit()) {
                            grants.add(before, System.nanoTime());
                        } else {
                            refusals.add(before, System.nanoTime());
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
        return judge(grants, refusals, n, windowMicros * 1000, windows);
    }

    /** {@code threads} threads call back to back for {@code forNanos}, then the grants are judged. */
    public static Result hammer(Attempt attempt, int n, long windowNanos, long forNanos, int threads)
            throws InterruptedException {
        Brackets grants = new Brackets();
        long end = System.nanoTime() + forNanos;
        Thread[] running = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            running[t] = new Thread(() -> {
                while (System.nanoTime() < end) {
                    long before = System.nanoTime();
                    if (attempt.tryAdmit()) {
                        grants.add(before, System.nanoTime());
                    }
                }
            });
            running[t].start();
        }
        for (Thread t : running) {
            t.join();
        }
        return judge(grants, new Brackets(), n, windowNanos, (int) (forNanos / windowNanos));
    }

    /**
     * What {@link #hammerAroundAPause} measured.
     *
     * @param beforePause the grants of the first hammering
     * @param afterPause the grants of the hammering after the pause
     * @param maxProvable the most grants of both whose brackets lie in one interval of length W
     */
    public record Hammered(Brackets beforePause, Brackets afterPause, int maxProvable) {
    }

    /**
     * Hammers for {@code forNanos}, rests 1.2 W (a log empties, a bucket fills up), then hammers 2 W
     * more: the burst a limiter allows after an idle pause is judged together with the steady state.
     */
    public static Hammered hammerAroundAPause(Attempt attempt, int n, long windowNanos, long forNanos, int threads)
            throws InterruptedException {
        Brackets before = hammer(attempt, n, windowNanos, forNanos, threads).grants();
        LockSupport.parkNanos(windowNanos * 6 / 5);
        Brackets after = hammer(attempt, n, windowNanos, 2 * windowNanos, threads).grants();
        Brackets all = new Brackets();
        all.addAll(before);
        all.addAll(after);
        return new Hammered(before, after, all.maxProvable(windowNanos));
    }

    private static Result judge(Brackets grants, Brackets refusals, int n, long windowNanos, int windows) {
        if (grants.size() == 0) {
            return new Result(0, 0, new int[0], 0, grants, refusals);
        }
        long[] answered = grants.afters();
        long first = Arrays.stream(answered).min().getAsLong();
        int[] per = new int[Math.max(0, windows - 1)];
        for (long t : answered) {
            long k = (t - first) / windowNanos;
            if (k < per.length) {
                per[(int) k]++;
            }
        }
        double mean = Arrays.stream(per).average().orElse(0) / n;
        return new Result(grants.maxProvable(windowNanos), Brackets.maxProvable(answered, answered, windowNanos), per, mean,
                grants, refusals);
    }
}
