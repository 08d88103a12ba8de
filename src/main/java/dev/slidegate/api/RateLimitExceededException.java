package dev.slidegate.api;

/**
 * Thrown (or failed with, for {@code Uni} and {@code CompletionStage} methods) when a call is
 * refused. The HTTP layer turns it into a 429; other callers read {@link #decision()}.
 */
public class RateLimitExceededException extends RuntimeException {

    private final transient Decision decision;
    private final int cost;

    public RateLimitExceededException(Decision decision) {
        this(decision, 1);
    }

    /** A refusal of a call weighing {@code cost} permits. */
    public RateLimitExceededException(Decision decision, int cost) {
        super(null, null, false, false);
        this.decision = decision;
        this.cost = cost;
    }

    /** What was refused and when to retry; written when asked for (a refused HTTP request never asks). */
    @Override
    public String getMessage() {
        return describe(decision, cost);
    }

    private static String describe(Decision d, int cost) {
        String limit = d.trippedLimit().map(Limit::toString).orElse("?");
        if (neverAdmissible(d, cost)) {
            return "Rate limit exceeded: policy '" + d.policy().name() + "': a call costs " + cost
                    + " permits, more than limit " + limit
                    + " ever grants; it can never be admitted";
        }
        return "Rate limit exceeded: policy '" + d.policy().name() + "', limit " + limit + ", retry in " + d.retryAfterSeconds()
                + " s";
    }

    private static boolean neverAdmissible(Decision d, int cost) {
        return d.trippedLimit().map(l -> cost > l.permits()).orElse(false);
    }

    /** The refusal, with the limit that tripped and how long to wait. */
    public Decision decision() {
        return decision;
    }

    /** The permits the refused call weighed. */
    public int cost() {
        return cost;
    }

    /** Whether the call weighs more than the tripped limit ever grants, so waiting will not help. */
    public boolean neverAdmissible() {
        return neverAdmissible(decision, cost);
    }
}
