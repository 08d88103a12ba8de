package dev.slidegate.core;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Policy;

/**
 * The inspection SPI: what the admin asks of the store (a key's state, listings, counts, resets), never
 * on a request's path. Kept apart from {@link DecisionStore} so that the admin's reads can be bounded
 * and sent on connections of their own without any decorator of decisions seeing them.
 */
public interface StoreInspection {

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
    default CompletionStage<Map<String, Long>> counts(Collection<Policy> policies) {
        Map<String, Long> counts = new ConcurrentHashMap<>();
        CompletableFuture<?>[] each = policies.stream()
                .map(p -> count(p).thenAccept(c -> counts.put(p.name(), c)).toCompletableFuture())
                .toArray(CompletableFuture[]::new);
        return CompletableFuture.allOf(each).thenApply(v -> counts);
    }

    /**
     * For a policy counting calls in flight: how long ago the oldest lease of {@code key} that is live now was granted
     * (µs, on the store's clock), or -1 when the key has none.
     */
    CompletionStage<Long> oldestLeaseAge(Policy policy, String key);

    /** Forgets everything recorded for {@code key} under {@code policy}. */
    CompletionStage<Void> reset(Policy policy, String key);

    /**
     * One page of keys.
     *
     * @param keys the keys, in the store's order
     * @param next the cursor of the next page, or {@code null} after the last
     */
    record KeyPage(List<String> keys, String next) {
    }
}
