package dev.slidegate.core;

/**
 * Whether a policy's calls are settled after they ran ({@code slidegate.policies.<name>.settle}): admitted against their
 * estimate (the cost), then charged what the code reports they used ({@link dev.slidegate.api.Usage}); see
 * {@link DecisionStore#settle}.
 */
public enum Settlement {
    /** The cost is charged when the call is admitted, and stays. */
    OFF,
    /** Settled with the usage reported; a call that reports none keeps its estimate, whether it succeeded or failed. */
    REPORTED,
    /** As {@link #REPORTED}, but a call that fails or is cancelled without a report is refunded in full. */
    REPORTED_OR_REFUND;

    /** Whether calls are settled at all. */
    public boolean settles() {
        return this != OFF;
    }

    /** What a call that ended without a report is charged: its estimate, or nothing when it failed and failures refund. */
    public long unreported(int estimate, boolean failed) {
        return failed && this == REPORTED_OR_REFUND ? 0 : estimate;
    }
}
