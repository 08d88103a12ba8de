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
     * One policy's part in a call of several ({@link #acquireAll}): {@code cost} permits of {@code policy} for {@code key},
     * waiting up to {@code maxWaitMicros} as {@link #acquire(Policy, String, int, long)} would.
     */
    record Asked(Policy policy, String key, int cost, long maxWaitMicros) {

        /**
         * Checks the ask as every store requires it: a policy that counts per window, a cost of 1 at least, a maximum
         * wait of 0 to a day.
         *
         * @throws IllegalArgumentException naming the rule
         */
        public Asked {
            checkRates(policy);
            DecisionStore.checkMaxWait(maxWaitMicros);
            if (cost < 1) {
                throw new IllegalArgumentException("cost must be at least 1, was " + cost);
            }
        }

        /**
         * Which of a call's asks the {@code i}-th of its decisions {@code made} answers ({@link #acquireAll}): the
         * {@code i}-th when all were admitted, else the one of the refusal's policy.
         */
        public static int of(java.util.List<Asked> asks, java.util.List<Decision> made, int i) {
            if (made.size() == asks.size()) {
                return i;
            }
            String name = made.get(i).policy().name();
            for (int j = 0; j < asks.size(); j++) {
                if (asks.get(j).policy().name().equals(name)) {
                    return j;
                }
            }
            throw new IllegalStateException("a refusal of policy '" + name + "' answers no ask of the call");
        }
    }

    /**
     * Decides a call of several policies, each for its own key, in one atomic step: every policy admits and every one is
     * charged, at one instant (at once, or the first instant at which every one has room, within each one's max-wait: a
     * reservation, each decision saying the same wait), or none is charged, not even a policy that counts refused calls
     * ({@code count-rejected}). Nothing else is decided between the asks. Calls are placed in order of arrival on each key
     * as {@link #acquire(Policy, String, int, long)} places them.
     *
     * <p>
     * A store that cannot decide several keys at once may keep this default: each policy in order as {@link #acquire}, to
     * the first refusal; those before it stay charged. Every store Slidegate ships overrides it.
     *
     * @param asks at least one, each a policy that counts per window
     * @return admitted: one decision per ask, in their order; refused: one decision, the refusal of the ask that refused
     *         (the first in the asks' order whose own limits have no room within its max-wait, else the one whose room
     *         comes latest), which names its policy
     */
    default CompletionStage<java.util.List<Decision>> acquireAll(java.util.List<Asked> asks) {
        return inTurn(asks, a -> acquire(a.policy(), a.key(), a.cost(), a.maxWaitMicros()));
    }

    /**
     * A call of several policies decided one policy after the other by {@code decide}, to the first refusal (what
     * {@link #acquireAll} answers: every decision, or the refusal alone); the decisions before a refusal stand.
     */
    static CompletionStage<java.util.List<Decision>> inTurn(java.util.List<Asked> asks,
            java.util.function.Function<Asked, CompletionStage<Decision>> decide) {
        return inTurn(asks, 0, java.util.List.of(), decide);
    }

    private static CompletionStage<java.util.List<Decision>> inTurn(java.util.List<Asked> asks, int i,
            java.util.List<Decision> made, java.util.function.Function<Asked, CompletionStage<Decision>> decide) {
        if (i == asks.size()) {
            return java.util.concurrent.CompletableFuture.completedFuture(made);
        }
        return decide.apply(asks.get(i)).thenCompose(d -> {
            if (!d.allowed()) {
                return java.util.concurrent.CompletableFuture.completedFuture(java.util.List.of(d));
            }
            java.util.List<Decision> all = new java.util.ArrayList<>(made);
            all.add(d);
            return inTurn(asks, i + 1, all, decide);
        });
    }

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
     * Gives back the {@code cost} permits a call admitted at {@code admittedAtMicros} ({@link Decision#atMicros()}) took
     * and will never run on: an outgoing call that waited for its permit and found its upstream's pause over it (it is
     * decided again after the pause). Where they were charged, on every limit of the key; what a window no longer counts
     * is left alone. A policy that settles is settled at 0; a sliding log gives back {@link #refund} the permits.
     *
     * @return completes when given back; a failed stage leaves them charged (a refusal too many, never an admission)
     */
    default CompletionStage<Void> giveBack(Policy policy, String key, long admittedAtMicros, int cost) {
        if (policy.settles()) {
            return settle(policy, key, admittedAtMicros, cost, 0).thenApply(at -> null);
        }
        return refund(policy, key, admittedAtMicros, cost);
    }

    /**
     * Removes up to {@code cost} permits a sliding log recorded at {@code atMicros} for {@code key} (permits recorded at
     * one instant are alike), for {@link #giveBack}. A store that cannot answers a failed stage, and the permits stay.
     */
    default CompletionStage<Void> refund(Policy policy, String key, long atMicros, int cost) {
        return java.util.concurrent.CompletableFuture.failedFuture(new UnsupportedOperationException(
                getClass().getSimpleName() + " cannot give back permits of a sliding log"));
    }

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
