package dev.slidegate.core;

import java.util.List;
import java.util.concurrent.CompletionStage;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Policy;

/**
 * The calls-in-flight capability of a store (issue 57): leases of calls that run, renewed while they run and ended when
 * they are done, and the queue of calls waiting for a slot. What policies with {@code max-in-flight} need
 * ({@link DecisionStore.Capability#IN_FLIGHT}). A slot itself is taken by {@link Rates#acquire}.
 */
public interface InFlightSlots {

    /**
     * Renews leases of {@code key} under a {@link dev.slidegate.api.Strategy#CONCURRENCY} policy for its lease time from
     * the store's now, while their calls run.
     *
     * @param leases the leases' names ({@link Decision#atMicros()} of their admissions), 1 to 1 000
     * @return those no longer held (they expired, or the key was reset): their calls run beyond what the store counts
     */
    CompletionStage<List<Long>> renew(Policy policy, String key, List<Long> leases);

    /**
     * Ends leases of {@code key} under a {@link dev.slidegate.api.Strategy#CONCURRENCY} policy: their calls are done, and
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
}
