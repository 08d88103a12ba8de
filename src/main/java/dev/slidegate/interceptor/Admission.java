package dev.slidegate.interceptor;

import jakarta.inject.Singleton;

import dev.slidegate.api.Decision;
import dev.slidegate.metrics.DecisionStats;

/**
 * What follows every decision, whichever entry point asked for it: count it, summarise refusals in the
 * log (dry-run ones every 10 s, enforced ones every 60 s, per policy), and say whether to refuse. The
 * HTTP adapters give the response its RateLimit fields ({@link HttpOutcomes}).
 */
@Singleton
class Admission {

    private final DecisionStats stats;
    private final SummaryLog dryRunLog = new SummaryLog("dev.slidegate.dry-run", "(dry-run) would have refused", 10);
    private final SummaryLog refusedLog = new SummaryLog("dev.slidegate.refused", "refused", 60);

    Admission(DecisionStats stats) {
        this.stats = stats;
    }

    /** Records {@code d}; {@code true} when the call must be refused (refused, and not in dry-run). */
    boolean refuse(Decision d) {
        stats.record(d);
        if (d.allowed()) {
            return false;
        }
        if (d.policy().dryRun()) {
            dryRunLog.record(d);
            return false;
        }
        refusedLog.record(d);
        return true;
    }
}
