package dev.slidegate.core;

import java.util.concurrent.CompletionStage;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Policy;

/**
 * The storage SPI: where windows live. Each call decides every limit of a policy in one atomic step.
 *
 * <p>
 * Implementations never block the calling thread: an in-process store answers with a completed
 * stage, a remote one completes the stage from its I/O thread.
 */
public interface LimiterStore {

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

    /** A short name for logs and admin: {@code memory}, {@code redis}. */
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

    /** Forgets everything recorded for {@code key} under {@code policy}. */
    CompletionStage<Void> reset(Policy policy, String key);

    /**
     * The state of {@code key} under {@code policy} now, as the next decision would see it (same clock,
     * same trimming rules), charging and writing nothing. A key without state shows every limit unused.
     */
    CompletionStage<Decision> peek(Policy policy, String key);

    /**
     * A page of the keys that hold state under {@code policy}.
     *
     * @param cursor {@code ""} for the first page, else the {@link KeyPage#next()} of the previous one
     * @param limit the most keys to return (a page may hold fewer and still have a next one)
     */
    CompletionStage<KeyPage> keys(Policy policy, String cursor, int limit);

    /** How many keys hold state under {@code policy} (on Redis, a full scan: for summaries, not per request). */
    CompletionStage<Long> count(Policy policy);

    /** {@link #count} of several policies, by policy name; a store may answer them in one pass. */
    default CompletionStage<java.util.Map<String, Long>> counts(java.util.Collection<Policy> policies) {
        java.util.Map<String, Long> counts = new java.util.concurrent.ConcurrentHashMap<>();
        java.util.concurrent.CompletableFuture<?>[] each = policies.stream()
                .map(p -> count(p).thenAccept(c -> counts.put(p.name(), c)).toCompletableFuture())
                .toArray(java.util.concurrent.CompletableFuture[]::new);
        return java.util.concurrent.CompletableFuture.allOf(each).thenApply(v -> counts);
    }

    /**
     * One page of keys.
     *
     * @param keys the keys, in the store's order
     * @param next the cursor of the next page, or {@code null} after the last
     */
    record KeyPage(java.util.List<String> keys, String next) {
    }
}
