package dev.slidegate.core;

import java.util.List;
import java.util.concurrent.CompletionStage;

import dev.slidegate.api.Limit;
import dev.slidegate.api.Policy;

/**
 * The upstream capability of a store (issue 57): a key held while its upstream has no room, and the limits an upstream
 * published, kept where every instance that shares the store reads them. What outgoing policies need
 * ({@link DecisionStore.Capability#UPSTREAM_HOLDS}).
 */
public interface UpstreamHolds {

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
     * As {@link #hold}, but only when {@code key} is not held now: a block after a breach ({@code block-for}) that does
     * not grow while the blocked caller keeps calling, and ends at the same instant on every instance.
     *
     * @return how long the key is held from the store's now (this block, or the hold it found)
     */
    CompletionStage<Long> block(Policy policy, String key, long forMicros);

    /**
     * How long {@code key} is still held by {@link #hold} (µs from the store's now), 0 when it is not: a call that
     * waited for a permit asks before it goes out, since a hold made meanwhile (elsewhere) voids its permit.
     */
    CompletionStage<Long> heldFor(Policy policy, String key);

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
}
