package dev.slidegate.core;

import java.util.concurrent.CompletionStage;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Policy;

/**
 * The rate capability of a store (issue 57): a call's permits under every limit of its policy, decided in one atomic step,
 * and settled once its usage is known. What the rate stage and settlements ask; every store offers it. The rules every
 * store applies to the arguments are {@link DecisionStore}'s validators.
 */
public interface Rates {

    /**
     * Tries to take {@code cost} permits from every limit of {@code policy} for {@code key} at once: either all
     * limits admit and all are charged, or none is charged (unless the policy counts rejected calls,
     * in which case a refused call is charged too).
     *
     * @param key the caller's key, already made safe by the caller (bounded length, no braces)
     * @param cost permits this call weighs, at least 1
     * @return the decision; completes exceptionally when the store cannot decide
     */
    default CompletionStage<Decision> acquire(Policy policy, String key, int cost) {
        return acquire(policy, key, cost, 0);
    }

    /**
     * As {@link #acquire(Policy, String, int)}, but a call whose permits free within {@code maxWaitMicros} is admitted
     * for the instant they free, and charged at that instant in the same atomic step (a reservation:
     * {@link Decision#waitMicros()} says how long the caller must hold the call). Calls of one key are placed in
     * the order they reach the store; none is placed before a reservation already made, so a call that could not
     * wait is refused while others wait for that key. A call that would wait longer is refused at once.
     *
     * @param maxWaitMicros 0 (refuse at once) to {@link Policy#MAX_WAIT_LIMIT_MICROS} (a day)
     * @throws IllegalArgumentException for a policy of calls in flight (those take a slot: {@link InFlightSlots#enter})
     */
    CompletionStage<Decision> acquire(Policy policy, String key, int cost, long maxWaitMicros);

    /**
     * Settles a call admitted at {@code admittedAtMicros} ({@link Decision#atMicros()}) against an estimate of
     * {@code estimate} permits, now that its actual usage is known: the difference is charged (more used) or refunded
     * (less used) where the estimate was charged, on every limit of the key, so that the windows that hold the
     * admission hold its actual usage from now on. A window that no longer counts the admission is left alone; a token
     * bucket is charged or refunded now (never above full). Settling takes nothing back from a call already admitted: a
     * larger usage can put the key over its limit, and later calls wait or are refused until the windows have room.
     * Settle each admission once.
     *
     * @return the store's instant the settlement was made at (µs since the epoch)
     * @throws IllegalArgumentException (or a failed stage) when {@link DecisionStore#settlement} refuses it
     */
    CompletionStage<Long> settle(Policy policy, String key, long admittedAtMicros, int estimate, long actual);

    /**
     * Checks the policy of {@link #acquire}: one that counts per window.
     *
     * @throws IllegalArgumentException naming the rule
     */
    static Policy checkRates(Policy policy) {
        if (policy.inFlight()) {
            throw new IllegalArgumentException("policy '" + policy.name() + "' limits calls in flight: a call takes a slot "
                    + "(InFlightSlots.enter), not permits");
        }
        return policy;
    }
}
