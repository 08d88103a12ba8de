package dev.slidegate.interceptor;

import jakarta.inject.Singleton;

import dev.slidegate.api.Decision;
import dev.slidegate.http.HttpDecisions;
import dev.slidegate.metrics.DecisionStats;
import io.vertx.ext.web.RoutingContext;

/**
 * What follows every decision, wherever it was made (the interceptor or the path limiter): count it,
 * give the HTTP response its RateLimit fields, summarise refusals in the log (dry-run ones every 10 s,
 * enforced ones every 60 s, per policy), and say whether to refuse.
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
    boolean refuse(Decision d, RoutingContext rc) {
        stats.record(d);
        if (rc != null) {
            HttpDecisions.record(rc, d);
        }
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
