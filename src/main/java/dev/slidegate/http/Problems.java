package dev.slidegate.http;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Limit;
import dev.slidegate.api.Policy;
import dev.slidegate.api.RateLimitExceededException;

/** The problem bodies Slidegate answers with, built in one place for the JAX-RS mappers and the path limiter. */
public final class Problems {

    private static final String TYPES = "https://slidegate.dev/problems/";

    /**
     * The IETF RateLimit draft's problem types (draft-ietf-httpapi-ratelimit-headers-11, section "Problem Types"): a
     * request over a quota policy, and one the server cannot serve for a temporary reduction in its capacity.
     */
    public static final String QUOTA_EXCEEDED = "https://iana.org/assignments/http-problem-types#quota-exceeded";
    public static final String TEMPORARY_REDUCED_CAPACITY = "https://iana.org/assignments/http-problem-types#"
            + "temporary-reduced-capacity";

    private Problems() {
    }

    /** A problem of the kind {@code https://slidegate.dev/problems/<kind>}, without rate-limit members. */
    public static Problem of(int status, String title, String kind, String detail) {
        return new Problem(TYPES + kind, title, status, detail, null, null, null);
    }

    /** The 429 body of a refusal. */
    public static Problem rateLimited(RateLimitExceededException e) {
        Decision d = e.decision();
        String limit = d.trippedLimit().map(Limit::toString).orElse(null);
        long retry = d.retryAfterSeconds();
        String permits = d.policy().countsOwnUnit() ? d.policy().unit() : "permits";
        String detail = e.neverAdmissible()
                ? "This call costs " + e.cost() + " " + permits + ", more than policy '" + d.policy().name() + "' grants in "
                        + limit + "; it can never be admitted."
                : "Policy '" + d.policy().name() + "' allows "
                        + (limit == null ? "fewer calls" : describe(d.policy(), d.trippedLimit().get()))
                        + ("global".equals(d.policy().key()) ? " in all, for every caller together" : " per caller")
                        + "; retry in " + retry + " s.";
        if (d.policy().inFlight()) { // (the limit's window is the lease time, which says nothing to the caller)
            int most = d.policy().maxInFlight();
            return new Problem(QUOTA_EXCEEDED, "Too Many Requests", 429, "Policy '" + d.policy().name()
                    + "' allows " + most + (most == 1 ? " call" : " calls") + " at once"
                    + ("global".equals(d.policy().key()) ? " in all, for every caller together" : " per caller")
                    + ", and that many are running; retry in " + retry + " s.", d.policy().name(), most + " in flight", retry,
                    violated(d));
        }
        if (e.heldByUpstream()) { // not the policy's own limit (the spreading one would be named): the upstream's pause
            return new Problem(TYPES + "upstream-paused", "Too Many Requests", 429, "Policy '" + d.policy().name()
                    + "' holds its calls to an upstream that asked for a pause (Retry-After, or a quota it said was spent); "
                    + "retry in " + retry + " s.", d.policy().name(), null, retry);
        }
        if (e.waitingRoomFull()) {
            return new Problem(QUOTA_EXCEEDED, "Too Many Requests", 429,
                    "Policy '" + d.policy().name() + "' lets calls wait for their permit, but too many calls are waiting "
                            + "already; retry in " + retry + " s.",
                    d.policy().name(), limit, retry, violated(d));
        }
        return new Problem(QUOTA_EXCEEDED, "Too Many Requests", 429, detail, d.policy().name(), limit, retry, violated(d));
    }

    /** The quota policies a refusal exceeded, named as the RateLimit-Policy field names them: the limit that refused. */
    private static java.util.List<String> violated(Decision d) {
        int i = d.trippedIndex();
        if (i >= 0 && i < d.policy().limits().size()) {
            return java.util.List.of(d.policy().quotaName(i));
        }
        java.util.List<String> all = new java.util.ArrayList<>();
        for (int l = 0; l < d.policy().limits().size(); l++) {
            all.add(d.policy().quotaName(l));
        }
        return all;
    }

    /** The answer to a request whose client went away while it waited for its permit: nobody reads it. */
    public static Problem clientGone(String policy) {
        return of(499, "Client Closed Request", "client-gone",
                "The client closed the connection while this request waited for its permit of policy '" + policy + "'.");
    }

    /** The 400 body of a request without the key its policy needs. */
    public static Problem missingKey(String policy, String detail) {
        return new Problem(TYPES + "missing-key", "Missing rate-limit key", 400, detail, policy, null, null);
    }

    /** The 503 body of a decision the store could not make. */
    public static Problem storeUnavailable() {
        return new Problem(TEMPORARY_REDUCED_CAPACITY, "Rate limiter unavailable", 503,
                "The rate limiter could not decide this request; retry shortly.", null, null, 1L);
    }

    /** The 500 body of a call a key or plan resolver could not decide (the service's bug, logged where it happened). */
    public static Problem decisionFailed(String policy) {
        return of(500, "Internal Server Error", "decision-failed", "The rate limiter could not decide this request: policy '"
                + policy + "' failed to find the caller's key or plan.");
    }

    private static String describe(Policy p, Limit l) {
        if (p.countsOwnUnit()) { // 20000 tokens per 1m
            return l.permits() + " " + p.unit() + " per " + l.windowText();
        }
        return l.permits() + (l.permits() == 1 ? " call per " : " calls per ") + l.windowText();
    }
}
