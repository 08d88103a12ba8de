package dev.slidegate.core;

import java.util.List;
import java.util.concurrent.CompletionStage;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Policy;

/**
 * The calls-in-flight capability of a store: a primitive of its own, apart from {@link Rates}. A slot is taken by
 * {@link #enter}, as a lease renewed while its call runs and ended when it is done; calls that may wait queue for a slot.
 * What policies with {@code max-in-flight} ({@link Policy#inFlight()}) need ({@link DecisionStore.Capability#IN_FLIGHT}).
 * <p>
 * {@code enter(policy, key, maxWait)} admits a call while fewer than N of the key's leases are live and records a lease,
 * named by the instant it was granted at ({@link Decision#atMicros()}: no two live leases of a key share one), that lives
 * for the policy's lease time W unless renewed. A refusal records nothing; no store can foresee when a call ends, so a
 * store never reserves a slot for a later instant (a caller that may wait queues: {@link #queue}, see {@link SlotWaits}).
 * <p>
 * Waiting for a slot: each key has a queue of waiting calls, in arrival order, on every instance that shares the store. A
 * waiting call is named by a ticket. While the queue holds live tickets, a call that does not wait is admitted only to a
 * slot no ticket waits for (it never jumps the queue); the free slots (N minus the live leases) go to the first live
 * tickets, each taking a lease as {@code enter} would.
 */
public interface InFlightSlots {

    /**
     * Takes a slot of {@code key} under a policy of calls in flight for one call, or refuses it (retry after
     * {@link #inFlightRetryMicros}). A store answers at once: {@code maxWaitMicros} is for the layers that queue.
     *
     * @throws IllegalArgumentException for a policy that counts per window (those ask {@link Rates#acquire})
     */
    CompletionStage<Decision> enter(Policy policy, String key, long maxWaitMicros);

    /**
     * Renews leases of {@code key} under a policy of calls in flight for its lease time from
     * the store's now, while their calls run.
     *
     * @param leases the leases' names ({@link Decision#atMicros()} of their admissions), 1 to 1 000
     * @return those no longer held (they expired, or the key was reset): their calls run beyond what the store counts
     */
    CompletionStage<List<Long>> renew(Policy policy, String key, List<Long> leases);

    /**
     * Ends leases of {@code key} under a policy of calls in flight: their calls are done, and
     * their slots are free at once for the key's next call on any instance.
     *
     * @param leases the leases' names ({@link Decision#atMicros()} of their admissions), 1 to 1 000
     * @return those that were no longer held (expired, reset, or ended before)
     */
    CompletionStage<List<Long>> leave(Policy policy, String key, List<Long> leases);

    /**
     * Queues calls of {@code key} for a slot, or asks again for those queued: each ticket named is kept in the queue (in
     * its arrival place) for {@code lapseMicros} more, unless it gets a lease now. A ticket not named again within
     * {@code lapseMicros} lapses (its instance stopped asking: it died or paused), and leaves the queue.
     *
     * @param tickets the tickets of calls waiting, in any order; {@code 0} queues a new call at the end (its ticket is
     *        answered), 1 to 1 000 at once
     * @return per ticket named, in order: its ticket and its lease's name, or 0 while it waits on
     */
    CompletionStage<Turn> queue(Policy policy, String key, List<Long> tickets, long lapseMicros);

    /** Takes tickets out of {@code key}'s queue (their calls stopped waiting). A ticket already out is ignored. */
    CompletionStage<Void> unqueue(Policy policy, String key, List<Long> tickets);

    /**
     * A turn of the queue, for the tickets named: {@code tickets.get(i)}'s lease is {@code leases.get(i)}, 0 while it
     * waits on; {@code remaining} slots are free for calls that do not wait, at the store's instant {@code atMicros}.
     */
    record Turn(List<Long> tickets, List<Long> leases, int remaining, long atMicros) {
    }

    /**
     * How long a caller refused a slot is told to wait before it asks again (its retry-after, and the reset of a key with
     * no slot free): 1 s, or the lease time when shorter. A slot frees when a call ends, which no store can foresee.
     */
    static long inFlightRetryMicros(Policy policy) {
        return Math.min(1_000_000L, policy.leaseMicros());
    }

    /**
     * Checks the policy of {@link #enter}: one of calls in flight.
     *
     * @throws IllegalArgumentException naming the rule
     */
    static Policy checkInFlight(Policy policy) {
        if (!policy.inFlight()) {
            throw new IllegalArgumentException("policy '" + policy.name() + "' counts calls per window, not calls in flight");
        }
        return policy;
    }

    /**
     * Checks leases named for {@link #renew} or {@link #leave}: a policy counting calls in flight, at least one lease,
     * at most 1 000 at once.
     *
     * @throws IllegalArgumentException naming the rule
     */
    static List<Long> checkLeases(Policy policy, List<Long> leases) {
        checkInFlight(policy);
        if (leases.isEmpty() || leases.size() > 1_000) {
            throw new IllegalArgumentException("name 1 to 1000 leases at once, not " + leases.size());
        }
        return List.copyOf(leases);
    }

    /** Checks tickets named for {@link #queue} or {@link #unqueue}: a policy counting calls in flight, 1 to 1 000. */
    static List<Long> checkTickets(Policy policy, List<Long> tickets) {
        return checkLeases(policy, tickets);
    }
}
