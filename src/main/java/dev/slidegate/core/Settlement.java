package dev.slidegate.core;

/**
 * Whether and how a policy's calls are settled after they ran ({@code slidegate.policies.<name>.settle}): admitted
 * against their estimate (the cost), then charged what the code reports they used ({@link dev.slidegate.api.Usage}, a
 * result that reports it, or the response header {@code usageHeader}); see {@link DecisionStore#settle}.
 *
 * @param settles whether calls are settled at all
 * @param refundFailures whether a call that fails or is cancelled without a report is refunded in full (else it keeps
 *        its estimate)
 * @param usageHeader the response header field an HTTP endpoint reports its usage in ({@code usage-header}), or
 *        {@code null}
 * @param countWhen the outcomes that count ({@code count-when}): a call is charged its cost when its outcome is one,
 *        refunded when not, whatever it reported; {@code null} for a policy settled by reported usage
 * @param fromAnswer whether the usage is read from the call's answer, as LLM providers report it ({@code usage-from=answer},
 *        {@link AnswerUsage})
 */
public record Settlement(boolean settles, boolean refundFailures, String usageHeader, CountWhen countWhen,
        boolean fromAnswer) {

    /** The cost is charged when the call is admitted, and stays. */
    public static final Settlement OFF = new Settlement(false, false, null, null);
    /** Settled with the usage reported; a call that reports none keeps its estimate, whether it succeeded or failed. */
    public static final Settlement REPORTED = new Settlement(true, false, null, null);
    /** As {@link #REPORTED}, but a call that fails or is cancelled without a report is refunded in full. */
    public static final Settlement REPORTED_OR_REFUND = new Settlement(true, true, null, null);

    public Settlement {
        if (!settles && (refundFailures || usageHeader != null || countWhen != null || fromAnswer)) {
            throw new IllegalArgumentException(
                    "only a settled policy refunds failures, reads a usage header or an answer, or counts by outcome");
        }
        if (countWhen != null && (refundFailures || usageHeader != null || fromAnswer)) {
            throw new IllegalArgumentException("a policy that counts by outcome neither refunds failures nor reads a usage");
        }
    }

    /** A policy settled by reported usage. */
    public Settlement(boolean settles, boolean refundFailures, String usageHeader) {
        this(settles, refundFailures, usageHeader, null, false);
    }

    /** A policy settled by reported usage, or by outcome. */
    public Settlement(boolean settles, boolean refundFailures, String usageHeader, CountWhen countWhen) {
        this(settles, refundFailures, usageHeader, countWhen, false);
    }

    /** Calls charged their cost when their outcome is one of {@code countWhen}, refunded when not. */
    public static Settlement countingWhen(CountWhen countWhen) {
        return new Settlement(true, false, null, java.util.Objects.requireNonNull(countWhen));
    }

    /** This settlement, reading the usage from the response header field {@code name} too. */
    public Settlement withUsageHeader(String name) {
        return new Settlement(settles, refundFailures, name, countWhen, fromAnswer);
    }

    /** This settlement, reading the usage from the call's answer too. */
    public Settlement readingTheAnswer() {
        return new Settlement(settles, refundFailures, usageHeader, countWhen, true);
    }

    /** What a call that ended without a report is charged: its estimate, or nothing when it failed and failures refund. */
    public long unreported(int estimate, boolean failed) {
        return failed && refundFailures ? 0 : estimate;
    }
}
