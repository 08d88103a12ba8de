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
 * @param part what of the usage the policy counts: all of it, or the input or output tokens alone
 */
public record Settlement(boolean settles, boolean refundFailures, String usageHeader, CountWhen countWhen,
        boolean fromAnswer, Part part) {

    /** What of a call's usage a policy counts. */
    public enum Part {
        /** All of it. */
        TOTAL,
        /** The input tokens alone ({@code input-limits}): the prompt's. */
        INPUT,
        /** The output tokens alone ({@code output-limits}): the answer's. */
        OUTPUT;

        /** The setting that limits this part: {@code input-limits}, {@code output-limits}. */
        public String setting() {
            return name().toLowerCase(java.util.Locale.ROOT) + "-limits";
        }

        /** What follows the policy's name in the name of the policy that counts this part: {@code #input}. */
        public String suffix() {
            return "#" + name().toLowerCase(java.util.Locale.ROOT);
        }
    }

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
        if (part == null || (part != Part.TOTAL && !fromAnswer)) {
            throw new IllegalArgumentException("a policy counts a part of the usage only when it reads it from the answer");
        }
        if (countWhen != null && (refundFailures || usageHeader != null || fromAnswer)) {
            throw new IllegalArgumentException("a policy that counts by outcome neither refunds failures nor reads a usage");
        }
    }

    /** A policy settled by reported usage. */
    public Settlement(boolean settles, boolean refundFailures, String usageHeader) {
        this(settles, refundFailures, usageHeader, null, false, Part.TOTAL);
    }

    /** A policy settled by reported usage, or by outcome. */
    public Settlement(boolean settles, boolean refundFailures, String usageHeader, CountWhen countWhen) {
        this(settles, refundFailures, usageHeader, countWhen, false, Part.TOTAL);
    }

    /** Calls charged their cost when their outcome is one of {@code countWhen}, refunded when not. */
    public static Settlement countingWhen(CountWhen countWhen) {
        return new Settlement(true, false, null, java.util.Objects.requireNonNull(countWhen));
    }

    /** This settlement, reading the usage from the response header field {@code name} too. */
    public Settlement withUsageHeader(String name) {
        return new Settlement(settles, refundFailures, name, countWhen, fromAnswer, part);
    }

    /** This settlement, reading the usage from the call's answer too. */
    public Settlement readingTheAnswer() {
        return new Settlement(settles, refundFailures, usageHeader, countWhen, true, part);
    }

    /** This settlement, for the policy that counts {@code part} of the usage read from the answer. */
    public Settlement part(Part part) {
        return new Settlement(settles, refundFailures, usageHeader, countWhen, fromAnswer, part);
    }

    /** What a call that ended without a report is charged: its estimate, or nothing when it failed and failures refund. */
    public long unreported(int estimate, boolean failed) {
        return failed && refundFailures ? 0 : estimate;
    }
}
