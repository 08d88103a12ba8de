package dev.slidegate.core;

import java.util.List;

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
public interface DecisionStore extends Rates, UpstreamHolds, InFlightSlots {

    /**
     * What a store can do beyond deciding rates ({@link Rates}, which every store offers): a policy that needs a
     * capability the configured store lacks stops start-up with one sentence ({@code entry/StartupCheck}).
     */
    enum Capability {
        /** Settling an admitted call with its actual usage ({@link Rates#settle}): policies with {@code settle}. */
        SETTLE("settle a call's usage (settle=true)"),
        /** Holding keys and keeping learned limits ({@link UpstreamHolds}): outgoing policies. */
        UPSTREAM_HOLDS("hold keys for an upstream and keep what it published (outgoing=true)"),
        /** Leases and slot queues ({@link InFlightSlots}): policies with {@code max-in-flight}. */
        IN_FLIGHT("count calls in flight (max-in-flight)");

        /** What it lets a policy do, for the sentence that refuses one. */
        public final String does;

        Capability(String does) {
            this.does = does;
        }
    }

    /** What this store offers beyond rates; every capability unless it says otherwise. */
    default java.util.Set<Capability> offers() {
        return java.util.EnumSet.allOf(Capability.class);
    }

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

    /** The most a call may be settled at: a usage beyond it is a bug of the code reporting it, not a cost. */
    long MAX_SETTLED = dev.slidegate.api.Usage.MAX;

    /**
     * Checks a settlement as every store requires it: a strategy that can settle ({@link Strategy#settles()}), an
     * estimate of 1 permit at least, and an actual usage of 0 to {@link #MAX_SETTLED}.
     *
     * @throws IllegalArgumentException naming the rule
     */
    static long settlement(Policy policy, int estimate, long actual) {
        if (!policy.settles()) {
            throw new IllegalArgumentException("policy '" + policy.name() + "' counts with " + policy.counting()
                    + ", which cannot settle a call after it ran: use " + Strategy.settlingNames());
        }
        if (estimate < 1 || actual < 0 || actual > MAX_SETTLED) {
            throw new IllegalArgumentException("a call is settled from an estimate of 1 permit at least to an actual usage of "
                    + "0 to " + MAX_SETTLED + ", not from " + estimate + " to " + actual);
        }
        return actual - estimate;
    }

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
}
