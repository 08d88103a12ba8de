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
 * @param atMicros on the store's clock (Redis {@code TIME} for Redis), in microseconds since the epoch: when
 *        admitted, the instant its permits are recorded at (the decision's instant, or later for a call that
 *        waits: {@code waitMicros} after it); when refused, the instant the store decided at
 * @param states per limit, in the policy's order, the state after this decision (for a call that waits, as of the
 *        instant it is admitted)
 * @param fallback whether the store could not decide and the policy's fail mode did ({@code open}
 *        or {@code local}); headers and metrics say so
 * @param waitMicros when admitted, how long after the decision its permits are reserved for: the call must not
 *        proceed before that (0: at once). A call waits only when it was allowed to (a policy's
 *        {@code max-wait}, or {@code maxWait} given to {@link RateLimiter#acquire(String, String, int,
 *        java.time.Duration)}), and never longer; 0 when refused
 */
public record Decision(Policy policy, boolean allowed, int trippedIndex, long retryAfterMicros, long atMicros,
        List<LimitState> states, boolean fallback, long waitMicros) {

    public Decision {
        states = List.copyOf(states);
        if (waitMicros < 0 || (waitMicros > 0 && !allowed)) {
            throw new IllegalArgumentException("only an admitted call waits, and never a negative time");
        }
    }

    /** A decision that admits at once or refuses. */
    public Decision(Policy policy, boolean allowed, int trippedIndex, long retryAfterMicros, long atMicros,
            List<LimitState> states, boolean fallback) {
        this(policy, allowed, trippedIndex, retryAfterMicros, atMicros, states, fallback, 0);
    }

    /** A decision the store made itself, admitting at once or refusing. */
    public Decision(Policy policy, boolean allowed, int trippedIndex, long retryAfterMicros, long atMicros,
            List<LimitState> states) {
        this(policy, allowed, trippedIndex, retryAfterMicros, atMicros, states, false, 0);
    }

    /** Whether the call was admitted for a later instant, and must wait {@link #waitMicros} before it proceeds. */
    public boolean waits() {
        return waitMicros > 0;
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
