package dev.slidegate.interceptor;

import dev.slidegate.http.Problem;

/**
 * What became of one call: admitted, or refused with the problem that answers an HTTP caller (429,
 * 400, 503 or 500) and the exception that tells a Java caller the same.
 *
 * @param problem the answer to a refused call; {@code null} when admitted
 * @param failure what a Java caller gets instead: {@link dev.slidegate.api.RateLimitExceededException},
 *        {@link dev.slidegate.api.MissingRateLimitKeyException},
 *        {@link dev.slidegate.api.StoreUnavailableException}, or the exception a key or plan resolver
 *        threw; {@code null} when admitted
 */
record Verdict(Problem problem, Throwable failure) {

    static final Verdict ADMITTED = new Verdict(null, null);

    boolean admitted() {
        return problem == null;
    }

    /** For callers that throw: nothing when admitted, else the failure (a checked one wrapped). */
    void orThrow() {
        if (failure instanceof RuntimeException e) {
            throw e;
        }
        if (failure instanceof Error e) {
            throw e;
        }
        if (failure != null) {
            throw new IllegalStateException(failure);
        }
    }
}
