package dev.slidegate.engine;

import jakarta.inject.Singleton;

import dev.slidegate.api.Decision;
import dev.slidegate.metrics.DecisionStats;

/**
 * What follows every decision, whichever entry point asked for it: count it, summarise refusals in the
 * log (dry-run ones every 10 s, enforced ones every 60 s, per policy), and say whether to refuse. The
 * HTTP adapters give the response its RateLimit fields (`entry/HttpOutcomes`).
 */
@Singleton
class Admission {

    private final DecisionStats stats;
    private final SummaryLog dryRunLog;
    private final SummaryLog refusedLog;
    private final SummaryLog refusedTooFarLog;
    private final SummaryLog noSlotInTimeLog;
    private final SummaryLog roomFullLog;
    private final SummaryLog lateLog;
    private final SummaryLog goneLog;

    /** Summaries timed on the system clock (tests that build the engine by hand). */
    Admission(DecisionStats stats) {
        this(stats, dev.slidegate.core.Clock.system());
    }

    /** Summaries timed on the instance's clock. */
    @jakarta.inject.Inject
    Admission(DecisionStats stats, dev.slidegate.core.Clock clock) {
        this.stats = stats;
        java.util.function.LongSupplier nanoTime = clock::nanoTime;
        dryRunLog = new SummaryLog("dev.slidegate.dry-run", "(dry-run) would have refused", 10, nanoTime);
        refusedLog = new SummaryLog("dev.slidegate.refused", "refused", 60, nanoTime);
        refusedTooFarLog = new SummaryLog("dev.slidegate.refused",
                "refused at once (their permits were further away than its max-wait)", 60, nanoTime);
        noSlotInTimeLog = new SummaryLog("dev.slidegate.refused", "refused at once (no slot freed within its max-wait)", 60,
                nanoTime);
        roomFullLog = new SummaryLog("dev.slidegate.refused",
                "refused at once (they could have waited, but slidegate.wait.max-waiting or max-waiting-per-key was reached)",
                60, nanoTime);
        lateLog = SummaryLog.ofCalls("dev.slidegate.waits",
                "were taken up too late for their reserved permits (woken late, or their threads came late) and were decided "
                        + "again (a paused or CPU-starved instance; raise slidegate.wait.late-tolerance if usual)",
                60, nanoTime);
        goneLog = SummaryLog.ofCalls("dev.slidegate.waits",
                "were let go: their clients went away while they waited (their permits stay charged)", 60, nanoTime);
    }

    /**
     * Records {@code d}; {@code true} when the call must be refused (refused, and not in dry-run). {@code roomFull}: the
     * call could have waited out this refusal, but the waiting room had no place for it (logged as such, not as a
     * refusal by the limit).
     */
    boolean refuse(Decision d, boolean roomFull) {
        stats.record(d);
        if (d.allowed()) {
            return false;
        }
        if (d.policy().dryRun()) {
            dryRunLog.record(d);
            return false;
        }
        (roomFull ? roomFullLog
                : d.policy().maxWaitMicros() <= 0 ? refusedLog
                        : d.policy().inFlight() ? noSlotInTimeLog : refusedTooFarLog)
                .record(d);
        return true;
    }

    /**
     * A held call woke, or was taken up by its thread, later than its permits' instant by more than the tolerance, and is
     * decided again.
     */
    void wokeLate(java.util.List<Decision> made) {
        lateLog.record(made.get(made.size() - 1));
    }

    /** A held call's client went away while it waited. */
    void abandoned(java.util.List<Decision> made) {
        goneLog.record(made.get(made.size() - 1));
    }
}
