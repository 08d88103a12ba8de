package dev.slidegate.engine;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jboss.logging.Logger;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Limit;
import dev.slidegate.core.IntervalSummary;

/**
 * Refusals as a summary, never a line per request: for each policy, the first refusal is reported at
 * once and later ones at most once per interval, with the count since the previous line. Never a
 * caller key (keys can be API keys), only the policy and the limit.
 */
final class SummaryLog {

    private final java.util.function.LongSupplier nanoTime;
    private final Logger log;
    private final long intervalNanos;
    private final Map<String, IntervalSummary> summaries = new ConcurrentHashMap<>();
    private final IntervalSummary.Report<Decision> line;

    /**
     * {@code what} completes "Policy 'p' ... 3 call(s)", e.g. "refused" or "(dry-run) would have refused"; intervals timed
     * on {@code nanoTime} (the instance's clock).
     */
    SummaryLog(String category, String what, long intervalSeconds, java.util.function.LongSupplier nanoTime) {
        this(category, intervalSeconds, nanoTime, false, what);
    }

    /**
     * A summary of calls that were not refused by a limit (held calls that woke late, or whose clients went away):
     * "Policy 'p': 3 call(s) in the last 60 s {@code what}".
     */
    static SummaryLog ofCalls(String category, String what, long intervalSeconds, java.util.function.LongSupplier nanoTime) {
        return new SummaryLog(category, intervalSeconds, nanoTime, true, what);
    }

    private SummaryLog(String category, long intervalSeconds, java.util.function.LongSupplier nanoTime, boolean calls,
            String what) {
        this.nanoTime = nanoTime;
        this.log = Logger.getLogger(category);
        this.intervalNanos = intervalSeconds * 1_000_000_000L;
        // joined, not formatted: String.format's first use (its number formats read the locale's data) made a service's
        // first refusal cost 2 MB of resident memory in a native executable
        this.line = calls
                ? (d, count, seconds) -> log.info("Policy '" + d.policy().name() + "': " + count + " call(s) in the last "
                        + seconds + " s " + what)
                : (d, count, seconds) -> log.info("Policy '" + d.policy().name() + "' " + what + " " + count
                        + " call(s) in the last " + seconds + " s; " + why(d));
    }

    /**
     * What refused: a limit of calls per window ({@code latest by limit 5/1s}), or, for a policy of calls in flight,
     * its slots ({@code all 2 slots in use}): such a policy has no permits or windows to speak of (issue 56).
     */
    private static String why(Decision d) {
        if (d.policy().inFlight()) {
            int most = d.policy().maxInFlight();
            return "all " + most + (most == 1 ? " slot" : " slots") + " in use";
        }
        return "latest by limit " + d.trippedLimit().map(Limit::toString).orElse("?");
    }

    void record(Decision d) {
        if (!log.isInfoEnabled()) {
            return;
        }
        IntervalSummary summary = summaries.get(d.policy().name()); // (no capturing lambda made per refusal)
        if (summary == null) {
            summary = summaries.computeIfAbsent(d.policy().name(), n -> new IntervalSummary(intervalNanos, nanoTime));
        }
        summary.record(d, line);
    }
}
