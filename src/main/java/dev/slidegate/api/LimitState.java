package dev.slidegate.api;

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

    /** {@link #resetMicros()} in whole seconds ({@link #wholeSeconds}): the {@code t} of the RateLimit field. */
    public long resetSeconds() {
        return wholeSeconds(resetMicros);
    }

    /**
     * Microseconds as whole seconds for headers, rounded up, except for the last microsecond: a sliding
     * log's permit frees one clock tick after W (it counts through tick t + W), and a 1 s window should
     * not read 2 for that tick.
     */
    public static long wholeSeconds(long micros) {
        return (micros + 999_998) / 1_000_000;
    }
}
