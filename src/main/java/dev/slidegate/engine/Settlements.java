package dev.slidegate.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.jboss.logging.Logger;

import dev.slidegate.api.Decision;
import dev.slidegate.api.FailMode;
import dev.slidegate.api.Usage;
import dev.slidegate.core.CountWhen;
import dev.slidegate.core.Settlement;
import io.quarkus.arc.Arc;
import io.quarkus.arc.ClientProxy;

/**
 * Settles the calls of policies with {@code settle=true} when they end: each admission is charged the usage the call's
 * code reported ({@link Usage}) instead of its estimate, in the store that admitted it.
 */
public final class Settlements {

    private static final Logger LOG = Logger.getLogger("dev.slidegate");
    private static final long WARN_EVERY_NANOS = 60_000_000_000L;

    private final dev.slidegate.core.Rates store;
    /** The instance's monotonic clock (its {@link dev.slidegate.core.Clock}'s), for the once-a-minute warnings. */
    private final java.util.function.LongSupplier nanoTime;
    private final AtomicLong warnedAt = new AtomicLong(Long.MIN_VALUE);
    private final AtomicLong headerWarnedAt = new AtomicLong(Long.MIN_VALUE);

    Settlements(dev.slidegate.core.Rates store, java.util.function.LongSupplier nanoTime) {
        this.store = store;
        this.nanoTime = nanoTime;
    }

    /**
     * One admission to settle: where its estimate went; {@code http}: the call is the answer to an HTTP request, whose
     * status is its outcome ({@code count-when}).
     */
    private record Admission(Decision decision, String key, int estimate, Settlement settlement, boolean http) {

        /** Whether its policy counts it by the status of the HTTP answer. */
        boolean countsByAnswer() {
            return http && settlement.countWhen() != null;
        }
    }

    /** What one admitted call settles when it ends, exactly once. */
    public final class Settling {
        private final List<Admission> admissions;
        private final Usage usage;
        private final Exchange rc;
        private final AtomicBoolean done = new AtomicBoolean();

        private Settling(List<Admission> admissions, Usage usage, Exchange rc) {
            this.admissions = admissions;
            this.usage = usage;
            this.rc = rc;
        }

        /** Where this call's usage is reported: the request's, or the call's own outside a request. */
        public Usage usage() {
            return usage != null ? usage : rc.usage();
        }

        /**
         * Settles every admission with the usage reported (by the code, else in the response's usage header), else as
         * {@link Settlement#unreported} says; a policy that counts by outcome ({@code count-when}) by the call's outcome:
         * the {@code status} it returned (a call that is not the answer to an HTTP request) and what it threw, or for a
         * call that answers an HTTP request its answer's status. Again: nothing. A call that reports in a header, or is
         * judged by its answer, and ends before its response is done (a method the interceptor decided returns before
         * its answer is written) settles when it is.
         */
        void settle(boolean failed, int status, Throwable thrown) {
            if (!done.compareAndSet(false, true)) {
                return;
            }
            long reported = reported();
            if (rc != null && ((reported < 0 && readsHeader()) || countsByAnswer()) && !rc.answered()) {
                try {
                    rc.whenAnswered(answerFailed -> settleNow(-1, failed || answerFailed, status, thrown, true));
                    return;
                } catch (RuntimeException ended) { // the response ended meanwhile: its header and status are there now
                }
            }
            settleNow(reported, failed, status, thrown, true);
        }

        /** The call did not run on this admission: every estimate it charged comes back (settled at 0). Again: nothing. */
        void notRun() {
            if (done.compareAndSet(false, true)) {
                settleNow(0, false, CountWhen.UNKNOWN, null, false);
            }
        }

        private boolean countsByAnswer() {
            for (Admission a : admissions) {
                if (a.countsByAnswer()) {
                    return true;
                }
            }
            return false;
        }

        private boolean readsHeader() {
            for (Admission a : admissions) {
                if (a.settlement().usageHeader() != null) {
                    return true;
                }
            }
            return false;
        }

        /** What the code reported so far (to the call's own Usage, or the request's), or -1. */
        private long reported() {
            Usage u = usage != null ? usage : rc != null ? rc.usageIfAny() : null;
            return u == null ? -1 : u.reported();
        }

        /** The input or output tokens reported so far ({@link Usage#reportTokens}), or -1. */
        private long reportedPart(dev.slidegate.core.Settlement.Part part) {
            Usage u = usage != null ? usage : rc != null ? rc.usageIfAny() : null;
            return u == null ? -1 : part == dev.slidegate.core.Settlement.Part.INPUT ? u.reportedInput() : u.reportedOutput();
        }

        /** @param ran whether the call ran on this admission (one that did not is settled at 0, whatever it counts) */
        private void settleNow(long reported, boolean failed, int status, Throwable thrown, boolean ran) {
            if (reported < 0) {
                reported = reported();
            }
            for (Admission a : admissions) {
                long actual;
                CountWhen when = a.settlement().countWhen();
                if (when != null) { // counted by its outcome: its cost when the outcome is one that counts, else nothing
                    int outcome = a.http() && rc != null ? rc.answerStatus() : status;
                    actual = ran && when.counts(outcome, thrown) ? a.estimate() : 0;
                } else if (a.settlement().part() != dev.slidegate.core.Settlement.Part.TOTAL) {
                    // input or output tokens alone, as the answer told them apart (never from a header)
                    actual = ran ? reportedPart(a.settlement().part()) : 0;
                    actual = actual >= 0 ? actual : a.settlement().unreported(a.estimate(), failed);
                } else {
                    actual = reported >= 0 ? reported : fromHeader(a, rc);
                    actual = actual >= 0 ? actual : a.settlement().unreported(a.estimate(), failed);
                }
                if (actual == a.estimate()) {
                    continue;
                }
                Decision d = a.decision();
                try {
                    store.settle(d.policy(), a.key(), d.atMicros(), a.estimate(), actual)
                            .whenComplete((at, error) -> {
                                if (error != null) {
                                    warn(d, error);
                                }
                            });
                } catch (RuntimeException e) {
                    warn(d, e);
                }
            }
        }
    }

    /** The usage the response's header reports for {@code a}'s policy, or -1 when it has none (or none that is a usage). */
    private long fromHeader(Admission a, Exchange rc) {
        String name = a.settlement().usageHeader();
        if (name == null || rc == null) {
            return -1;
        }
        String value = rc.answerHeader(name);
        if (value == null) {
            return -1;
        }
        long used = usage(value.trim());
        if (used < 0) {
            warnOnce(headerWarnedAt, () -> LOG.warnf("Slidegate: policy '%s' reads a call's usage from the response header "
                    + "%s, but it said '%s', which is not a whole number from 0 to %d: the call keeps its estimate (said once "
                    + "a minute)", a.decision().policy().name(), name, printable(value), Usage.MAX));
        }
        return used;
    }

    /** {@code text} as a usage (0 to {@link Usage#MAX} in decimal digits), or -1. */
    static long usage(String text) {
        if (text.isEmpty() || text.length() > 13) {
            return -1;
        }
        long v = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            v = v * 10 + (c - '0');
        }
        return v <= Usage.MAX ? v : -1;
    }

    /** At most 40 characters of a value, its controls shown as '?': a log line stays one line. */
    private static String printable(String value) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < value.length() && i < 40; i++) {
            char c = value.charAt(i);
            b.append(c < 0x20 || c == 0x7f ? '?' : c);
        }
        return value.length() > 40 ? b + "..." : b.toString();
    }

    /**
     * What a call admitted with {@code decisions} settles when it ends, or {@code null} when none of its policies settles
     * (or none charged anything: refused by a dry run, admitted by the fail mode {@code open}).
     *
     * @param asks what the call asked of each decision's policy, in order: its key, its cost (the estimate), its policy's
     *        settlement, whether it answers an HTTP request ({@link MethodPolicy#answersHttp})
     * @param rc the request the call answers, if any
     */
    Settling of(List<Decision> decisions, Ask[] asks, Exchange rc) {
        List<Admission> admissions = admissions(decisions, asks);
        if (admissions == null) {
            return null;
        }
        // during a request, its Usage is found in its routing context when the call ends (the producer puts it there):
        // a call decided before its endpoint ran may be decided outside the request context the endpoint reports in
        Usage own = rc == null ? current() : null;
        return new Settling(admissions, rc == null && own == null ? new Usage() : own, rc);
    }

    /**
     * Refunds a call that was not run (refused by a later policy, its client gone while it waited, a later policy's
     * store unable to decide): it used nothing, so each policy that settles and admitted it is settled at 0.
     */
    void notRun(List<Decision> decisions, Ask[] asks) {
        List<Admission> admissions = admissions(decisions, asks);
        if (admissions != null) {
            Usage nothing = new Usage();
            nothing.report(0);
            new Settling(admissions, nothing, null).notRun();
        }
    }

    /**
     * Whether {@code d} charged its estimate somewhere, so that it has something to settle: admitted, and not by the fail
     * mode {@code open} (which counts nothing).
     */
    public static boolean charged(Decision d) {
        return d.allowed() && !(d.fallback() && d.policy().failMode() == FailMode.OPEN);
    }

    /** The admissions among {@code decisions} to settle, or {@code null} when there is none. */
    private static List<Admission> admissions(List<Decision> decisions, Ask[] asks) {
        List<Admission> admissions = null;
        for (int j = 0; j < decisions.size(); j++) {
            Decision d = decisions.get(j);
            Settlement settlement = asks[j].mp().settlement();
            if (!settlement.settles() || !charged(d)) {
                continue;
            }
            if (admissions == null) {
                admissions = new ArrayList<>(2);
            }
            admissions.add(new Admission(d, asks[j].key(), asks[j].cost(), settlement, asks[j].mp().answersHttp()));
        }
        return admissions;
    }

    /** The request's Usage itself (not its proxy), when a request context is active here; else null (no container too). */
    private static Usage current() {
        if (Arc.container() == null || !Arc.container().requestContext().isActive()) {
            return null;
        }
        return ClientProxy.unwrap(Arc.container().instance(Usage.class).get());
    }

    private void warn(Decision d, Throwable error) {
        Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                ? error.getCause()
                : error;
        warnOnce(warnedAt, () -> LOG.warnf("Slidegate could not settle a call of policy '%s' (%s): it keeps the estimate it "
                + "was admitted against (said once a minute)", d.policy().name(), cause.getMessage()));
    }

    /** Says {@code line} unless it was said in the last minute (by {@code warnedAt}'s clock). */
    private void warnOnce(AtomicLong warnedAt, Runnable line) {
        long now = nanoTime.getAsLong();
        long last = warnedAt.get();
        if ((last == Long.MIN_VALUE || now - last >= WARN_EVERY_NANOS) && warnedAt.compareAndSet(last, now)) {
            line.run();
        }
    }
}
