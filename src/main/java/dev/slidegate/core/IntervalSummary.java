package dev.slidegate.core;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Events counted and reported as a summary, never one report per event: the first at once, later ones
 * at most once per interval, with the count since the previous report. Thread-safe; one report per due
 * interval whoever records concurrently.
 */
public final class IntervalSummary {

    /** Says that {@code count} events happened in the last {@code seconds} (at least 1), about {@code subject}. */
    @FunctionalInterface
    public interface Report<T> {
        void report(T subject, long count, long seconds);
    }

    private final LongSupplier nanoTime;
    private final long intervalNanos;
    private final AtomicLong count = new AtomicLong();
    private final AtomicLong lastReport;

    public IntervalSummary(long intervalNanos, LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
        this.intervalNanos = intervalNanos;
        this.lastReport = new AtomicLong(nanoTime.getAsLong() - intervalNanos);
    }

    /** Counts one event and, when a report is due, reports the count since the previous one. */
    public <T> void record(T subject, Report<? super T> report) {
        count.incrementAndGet();
        long now = nanoTime.getAsLong();
        long last = lastReport.get();
        if (now - last >= intervalNanos && lastReport.compareAndSet(last, now)) {
            report.report(subject, count.getAndSet(0), Math.max(1, Math.min(now - last, intervalNanos) / 1_000_000_000L));
        }
    }
}
