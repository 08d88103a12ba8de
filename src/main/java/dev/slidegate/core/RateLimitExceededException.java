package dev.slidegate.core;

/**
 * Thrown (or failed with, for {@code Uni} and {@code CompletionStage} methods) when a call is
 * refused. The HTTP layer turns it into a 429; other callers read {@link #decision()}.
 */
public class RateLimitExceededException extends RuntimeException {

    private final transient Decision decision;

    public RateLimitExceededException(Decision decision) {
        super("Rate limit exceeded: policy '" + decision.policy().name() + "', limit "
                + decision.trippedLimit().map(Limit::toString).orElse("?") + ", retry in "
                + decision.retryAfterSeconds() + " s", null, false, false);
        this.decision = decision;
    }

    /** The refusal, with the limit that tripped and how long to wait. */
    public Decision decision() {
        return decision;
    }
}
