package dev.slidegate.api;

import java.util.List;
import java.util.Optional;

/**
 * The outcome of one attempt to acquire permits: a value that headers, the 429 body, logs and metrics
 * all read.
 *
 * @param policy the policy that decided
 * @param allowed whether the call may proceed
 * @param trippedIndex index into {@code policy.limits()} of the limit that refused the call (the one
 *        with the longest wait when several did), or -1 when allowed
 * @param retryAfterMicros when refused, microseconds until a retry can succeed; 0 when allowed
 * @param atMicros the instant the store decided at, on the store's clock (Redis {@code TIME} for Redis),
 *        in microseconds since the epoch; admitted permits are recorded at this instant
 * @param states per limit, in the policy's order, the state after this decision
 * @param fallback whether the store could not decide and the policy's fail mode did ({@code open}
 *        or {@code local}); headers and metrics say so
 */
public record Decision(Policy policy, boolean allowed, int trippedIndex, long retryAfterMicros, long atMicros,
        List<LimitState> states, boolean fallback) {

    public Decision {
        states = List.copyOf(states);
    }

    /** A decision the store made itself. */
    public Decision(Policy policy, boolean allowed, int trippedIndex, long retryAfterMicros, long atMicros,
            List<LimitState> states) {
        this(policy, allowed, trippedIndex, retryAfterMicros, atMicros, states, false);
    }

    /** The limit that refused the call, if it was refused. */
    public Optional<Limit> trippedLimit() {
        return trippedIndex < 0 ? Optional.empty() : Optional.of(policy.limits().get(trippedIndex));
    }

    /** The fewest permits remaining over all limits. */
    public long remaining() {
        long min = Long.MAX_VALUE;
        for (LimitState s : states) {
            min = Math.min(min, s.remaining());
        }
        return min;
    }

    /**
     * Whole seconds to wait before retrying ({@link LimitState#wholeSeconds}), at least 1: the value of {@code Retry-After}.
     */
    public long retryAfterSeconds() {
        return Math.max(1, LimitState.wholeSeconds(retryAfterMicros));
    }
}
