package dev.slidegate.interceptor;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.jboss.logging.Logger;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Limit;

/**
 * Refusals as a summary, never a line per request: for each policy, the first refusal is reported at
 * once and later ones at most once per interval, with the count since the previous line. Never a
 * caller key (keys can be API keys), only the policy and the limit.
 */
final class SummaryLog {

    private record Counter(AtomicLong refused, AtomicLong lastLog) {
    }

    private final java.util.function.LongSupplier nanoTime;
    private final Logger log;
    private final String what;
    private final long intervalNanos;
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();

    /** {@code what} completes "Policy 'p' ... 3 call(s)", e.g. "refused" or "(dry-run) would have refused". */
    SummaryLog(String category, String what, long intervalSeconds) {
        this(category, what, intervalSeconds, System::nanoTime);
    }

    SummaryLog(String category, String what, long intervalSeconds, java.util.function.LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
        this.log = Logger.getLogger(category);
        this.what = what;
        this.intervalNanos = intervalSeconds * 1_000_000_000L;
    }

    void record(Decision d) {
        if (!log.isInfoEnabled()) {
            return;
        }
        Counter c = counters.computeIfAbsent(d.policy().name(),
                n -> new Counter(new AtomicLong(), new AtomicLong(nanoTime.getAsLong() - intervalNanos)));
        c.refused().incrementAndGet();
        long now = nanoTime.getAsLong();
        long last = c.lastLog().get();
        if (now - last >= intervalNanos && c.lastLog().compareAndSet(last, now)) {
            long count = c.refused().getAndSet(0);
            log.infof("Policy '%s' %s %d call(s) in the last %d s; latest by limit %s", d.policy().name(), what, count,
                    Math.max(1, Math.min(now - last, intervalNanos) / 1_000_000_000L),
                    d.trippedLimit().map(Limit::toString).orElse("?"));
        }
    }
}
