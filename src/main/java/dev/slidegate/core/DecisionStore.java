package dev.slidegate.core;

import java.util.List;
import java.util.concurrent.CompletionStage;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Limit;
import dev.slidegate.api.Policy;
import dev.slidegate.api.Strategy;

/**
 * The decisions SPI: what every call on a limited path asks of the store. Each call decides every limit
 * of a policy in one atomic step. The admin's reads go to the other SPI, {@link StoreInspection}, so a
 * decorator of decisions (metering, the fail modes, remembered refusals) wraps only this.
 *
 * <p>
 * Implementations never block the calling thread: an in-process store answers with a completed stage,
 * a remote one completes the stage from its I/O thread.
 */
public interface DecisionStore {

    /**
     * Checks a key as every store requires it: no {@code '{'} or {@code '}'} (they would choose a Redis
     * Cluster slot), no {@code '*'} unless the key is just {@code *} (the global key). Keys Slidegate
     * computes from requests never hold them; a key typed by an operator might.
     *
     * @throws IllegalArgumentException naming the rule
     */
    static String checkKey(String key) {
        if (key.indexOf('{') >= 0 || key.indexOf('}') >= 0 || (key.indexOf('*') >= 0 && !key.equals("*"))) {
            throw new IllegalArgumentException("a store key must not contain '{' or '}', nor '*' unless it is just '*'");
        }
        return key;
    }

    /** A short name for logs, metrics and admin: {@code memory}, {@code redis}. */
    String name();

    /**
     * Checks a maximum wait as every store requires it: 0 (refuse at once) to {@link Policy#MAX_WAIT_LIMIT_MICROS} (a day).
     *
     * @throws IllegalArgumentException naming the rule
     */
    static long checkMaxWait(long maxWaitMicros) {
        if (maxWaitMicros < 0 || maxWaitMicros > Policy.MAX_WAIT_LIMIT_MICROS) {
            throw new IllegalArgumentException("a maximum wait must lie between 0 and one day, was " + maxWaitMicros + " us");
        }
        return maxWaitMicros;
    }

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
     */
    CompletionStage<Decision> acquire(Policy policy, String key, int cost, long maxWaitMicros);

    /** The most a call may be settled at: a usage beyond it is a bug of the code reporting it, not a cost. */
    long MAX_SETTLED = dev.slidegate.api.Usage.MAX;

    /**
     * Checks a settlement as every store requires it: a strategy that can settle ({@link Strategy#settles()}), an
     * estimate of 1 permit at least, and an actual usage of 0 to {@link #MAX_SETTLED}.
     *
     * @throws IllegalArgumentException naming the rule
     */
    static long settlement(Policy policy, int estimate, long actual) {
        if (!policy.strategy().settles()) {
            throw new IllegalArgumentException("policy '" + policy.name() + "' counts with " + policy.strategy().configName()
                    + ", which cannot settle a call after it ran: use " + Strategy.settlingNames());
        }
        if (estimate < 1 || actual < 0 || actual > MAX_SETTLED) {
            throw new IllegalArgumentException("a call is settled from an estimate of 1 permit at least to an actual usage of "
                    + "0 to " + MAX_SETTLED + ", not from " + estimate + " to " + actual);
        }
        return actual - estimate;
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
     * @throws IllegalArgumentException (or a failed stage) when {@link #settlement} refuses it
     */
    CompletionStage<Long> settle(Policy policy, String key, long admittedAtMicros, int estimate, long actual);

    /**
     * Checks the length of a hold as every store requires it: 1 µs to {@link Policy#MAX_WAIT_LIMIT_MICROS} (a day).
     *
     * @throws IllegalArgumentException naming the rule
     */
    static long checkHold(long forMicros) {
        if (forMicros < 1 || forMicros > Policy.MAX_WAIT_LIMIT_MICROS) {
            throw new IllegalArgumentException("a hold must last between 1 us and one day, was " + forMicros + " us");
        }
        return forMicros;
    }

    /**
     * Holds every call of {@code key} under {@code policy} for {@code forMicros} from the store's now (an upstream said
     * it has no room until then): no call is placed before the hold ends, so each one waits for it (within its
     * max-wait) or is refused with the time left, on every instance that shares the store. A hold is never shortened
     * by a shorter one, and charges nothing.
     *
     * @param forMicros 1 µs to {@link Policy#MAX_WAIT_LIMIT_MICROS}
     * @return how long the key is held from the store's now (the longer of this hold and one made before)
     */
    CompletionStage<Long> hold(Policy policy, String key, long forMicros);

    /**
     * How long {@code key} is still held by {@link #hold} (µs from the store's now), 0 when it is not: a call that
     * waited for a permit asks before it goes out, since a hold made meanwhile (elsewhere) voids its permit.
     */
    CompletionStage<Long> heldFor(Policy policy, String key);

    /** The most limits {@link #learn} keeps for one key (a policy has at most as many windows as an upstream names). */
    int MAX_LEARNED_LIMITS = 8;

    /**
     * Checks limits to keep by {@link #learn} as every store requires them: at most {@link #MAX_LEARNED_LIMITS}, kept
     * 1 µs to {@link Policy#MAX_WAIT_LIMIT_MICROS} (a day).
     *
     * @throws IllegalArgumentException naming the rule
     */
    static List<Limit> checkLearned(List<Limit> limits, long forMicros) {
        if (limits.size() > MAX_LEARNED_LIMITS) {
            throw new IllegalArgumentException(
                    "a store keeps at most " + MAX_LEARNED_LIMITS + " learned limits for a key, not " + limits.size());
        }
        if (forMicros < 1 || forMicros > Policy.MAX_WAIT_LIMIT_MICROS) {
            throw new IllegalArgumentException("learned limits are kept between 1 us and one day, not " + forMicros + " us");
        }
        return List.copyOf(limits);
    }

    /**
     * Keeps the limits an upstream published for {@code key} of {@code policy} (an outgoing policy paces the key's calls
     * at them instead of its configured ones) for {@code forMicros} from now, replacing what was kept, where every
     * instance that shares the store reads them ({@link #learned}). An empty list forgets them. Counts nothing.
     *
     * @param forMicros 1 µs to {@link Policy#MAX_WAIT_LIMIT_MICROS}
     */
    CompletionStage<Void> learn(Policy policy, String key, List<Limit> limits, long forMicros);

    /** The limits {@link #learn} keeps for {@code key} of {@code policy} (by the policy's name); empty when none or expired. */
    CompletionStage<List<Limit>> learned(Policy policy, String key);

    /*
     * Calls in flight (Strategy.CONCURRENCY). acquire(policy, key, 1, maxWait) admits a call while fewer than N of the
     * key's leases are live and records a lease, named by the instant it was granted at (Decision.atMicros(): no two
     * live leases of a key share one), that lives for the policy's lease time W unless renewed. A refusal records
     * nothing; no store can foresee when a call ends, so a store never reserves a slot for a later instant (a caller
     * that may wait asks again when a slot frees: the layers above).
     */

    /**
     * How long a caller refused by a {@link dev.slidegate.api.Strategy#CONCURRENCY} policy is told to wait before it
     * asks again (its retry-after, and the reset of a key with no slot free): 1 s, or the lease time when shorter. A slot
     * frees when a call ends, which no store can foresee.
     */
    static long inFlightRetryMicros(Policy policy) {
        return Math.min(1_000_000L, policy.leaseMicros());
    }

    /**
     * Checks leases named for {@link #renew} or {@link #leave}: a policy counting calls in flight, at least one lease,
     * at most 1 000 at once.
     *
     * @throws IllegalArgumentException naming the rule
     */
    static List<Long> checkLeases(Policy policy, List<Long> leases) {
        if (!policy.strategy().inFlight()) {
            throw new IllegalArgumentException("policy '" + policy.name() + "' counts calls per window, not calls in flight");
        }
        if (leases.isEmpty() || leases.size() > 1_000) {
            throw new IllegalArgumentException("name 1 to 1000 leases at once, not " + leases.size());
        }
        return List.copyOf(leases);
    }

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

    /*
     * Waiting for a slot (max-wait on a CONCURRENCY policy): each key has a queue of waiting calls, in arrival order, on
     * every instance that shares the store. A waiting call is named by a ticket. While the queue holds live tickets, a
     * call that does not wait is admitted only to a slot no ticket waits for (it never jumps the queue); the free slots
     * (N minus the live leases) go to the first live tickets, each taking a lease as acquire would.
     */

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

    /** Checks tickets named for {@link #queue} or {@link #unqueue}: a policy counting calls in flight, 1 to 1 000. */
    static List<Long> checkTickets(Policy policy, List<Long> tickets) {
        return checkLeases(policy, tickets);
    }
}
