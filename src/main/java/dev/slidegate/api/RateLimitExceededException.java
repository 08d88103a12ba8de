package dev.slidegate.api;

/**
 * Thrown (or failed with, for {@code Uni} and {@code CompletionStage} methods) when a call is
 * refused. The HTTP layer turns it into a 429; other callers read {@link #decision()}.
 */
public class RateLimitExceededException extends RuntimeException {

    private final transient Decision decision;
    private final int cost;
    private final boolean waitingRoomFull;
    private final boolean heldByUpstream;

    public RateLimitExceededException(Decision decision) {
        this(decision, 1);
    }

    /** A refusal of a call weighing {@code cost} permits. */
    public RateLimitExceededException(Decision decision, int cost) {
        this(decision, cost, false);
    }

    /**
     * A refusal of a call weighing {@code cost} permits; {@code waitingRoomFull}: it could have waited for its permit
     * (within its max-wait) but this instance already held as many waiting calls as it may.
     */
    public RateLimitExceededException(Decision decision, int cost, boolean waitingRoomFull) {
        this(decision, cost, waitingRoomFull, false);
    }

    /**
     * As {@link #RateLimitExceededException(Decision, int, boolean)}; {@code heldByUpstream}: a call of an outgoing policy
     * refused because the upstream asked its callers to pause (a 429 with {@code Retry-After}, a quota it said was spent),
     * which holds every call of the key until the decision's retry-after.
     */
    public RateLimitExceededException(Decision decision, int cost, boolean waitingRoomFull, boolean heldByUpstream) {
        super(null, null, false, false);
        this.decision = decision;
        this.cost = cost;
        this.waitingRoomFull = waitingRoomFull;
        this.heldByUpstream = heldByUpstream;
    }

    /**
     * Whether the call (of an outgoing policy) was refused because its upstream asked for a pause that lasts longer than
     * the call may wait, rather than by one of the policy's own limits.
     */
    public boolean heldByUpstream() {
        return heldByUpstream;
    }

    /** Whether the call was refused only because too many calls already wait ({@code slidegate.wait.max-waiting*}). */
    public boolean waitingRoomFull() {
        return waitingRoomFull;
    }

    /** What was refused and when to retry; written when asked for (a refused HTTP request never asks). */
    @Override
    public String getMessage() {
        if (heldByUpstream) {
            return "Rate limit exceeded: policy '" + decision.policy().name() + "' holds its calls: its upstream asked for a "
                    + "pause; retry in " + decision.retryAfterSeconds() + " s";
        }
        String m = describe(decision, cost);
        return waitingRoomFull ? m + " (too many calls are waiting already)" : m;
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
        int tripped = d.trippedIndex(); // (no Optional: asked of every refusal, whose answer may be reused)
        return tripped >= 0 && cost > d.policy().limits().get(tripped).permits();
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
