package dev.slidegate.core;

import java.util.concurrent.CompletionStage;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Policy;

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
     * Tries to take {@code cost} permits from every limit of {@code policy} for {@code key}: either all
     * limits admit and all are charged, or none is charged (unless the policy counts rejected calls,
     * in which case a refused call is charged too).
     *
     * @param key the caller's key, already made safe by the caller (bounded length, no braces)
     * @param cost permits this call weighs, at least 1
     * @return the decision; completes exceptionally when the store cannot decide
     */
    CompletionStage<Decision> acquire(Policy policy, String key, int cost);
}
