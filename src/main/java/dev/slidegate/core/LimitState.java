package dev.slidegate.core;

/**
 * Where one limit of a policy stands for one key, right after a decision.
 *
 * @param limit the limit
 * @param remaining permits still available now (never negative)
 * @param resetMicros microseconds until at least one more permit becomes available; 0 when nothing
 *        of this limit is in use
 */
public record LimitState(Limit limit, long remaining, long resetMicros) {

    /** Each of {@code limits} with nothing in use: every permit remaining. */
    public static java.util.List<LimitState> untouched(java.util.List<Limit> limits) {
        return limits.stream().map(l -> new LimitState(l, l.permits(), 0)).toList();
    }

    /**
     * {@link #resetMicros()} in whole seconds, rounded up: the {@code t} of the RateLimit field. The
     * last microsecond is not rounded up: a sliding log's permit frees one clock tick after W (it
     * counts through tick t + W), and a 1 s window should not read "t=2" for that tick.
     */
    public long resetSeconds() {
        return (resetMicros + 999_998) / 1_000_000;
    }
}
