package dev.slidegate.interceptor;

import dev.slidegate.core.Decision;
import dev.slidegate.core.Limit;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jboss.logging.Logger;

/**
 * Reports what a dry-run policy would have refused: one INFO line per policy at most every 10 s,
 * with the count since the last line. Never a caller key: keys can be API keys.
 */
final class DryRunLog {

    private static final Logger LOG = Logger.getLogger("dev.slidegate.dry-run");
    private static final long INTERVAL_NANOS = 10_000_000_000L;

    private record Counter(AtomicLong refused, AtomicLong lastLog) {
    }

    private final Map<String, Counter> counters = new ConcurrentHashMap<>();

    void wouldHaveRefused(Decision d) {
        Counter c = counters.computeIfAbsent(d.policy().name(), n -> new Counter(new AtomicLong(), new AtomicLong(System.nanoTime() - INTERVAL_NANOS)));
        c.refused().incrementAndGet();
        long now = System.nanoTime();
        long last = c.lastLog().get();
        if (now - last >= INTERVAL_NANOS && c.lastLog().compareAndSet(last, now)) {
            LOG.infof("Policy '%s' (dry-run) would have refused %d call(s) in the last %d s; latest by limit %s", d.policy().name(),
                    c.refused().getAndSet(0), Math.max(1, (now - last) / 1_000_000_000L), d.trippedLimit().map(Limit::toString).orElse("?"));
        }
    }
}
