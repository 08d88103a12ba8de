package dev.slidegate.core;

import java.util.List;
import java.util.concurrent.CompletionStage;

import dev.slidegate.api.LimitOverride;

/**
 * An override source that can say what changed since a version it named, so that a change costs each instance the
 * overrides it touched, not a load of all of them (the Redis source: 10 000 overrides and 4 changes a second cost each
 * instance 4 loads of 7 MB a second). The shipped Redis source implements it beside {@link dev.slidegate.api.OverrideSource}.
 */
public interface OverrideChanges {

    /**
     * What changed after {@code version} ({@code -1}: everything, a full load).
     *
     * @return the changes, or everything ({@link Changes#complete()}) when the source cannot say what changed since
     *         then (it lost its record of changes, or kept too few)
     */
    CompletionStage<Changes> since(long version);

    /** Whether the source still holds {@code loaded} overrides: a cheap check that heals what the record of changes missed. */
    CompletionStage<Boolean> holds(int loaded);

    /** Removes {@code expired} from the source unless it was replaced meanwhile. */
    CompletionStage<Void> expire(LimitOverride expired);

    /**
     * Changes up to {@code version}.
     *
     * @param set the overrides set or replaced (with {@code complete}: every override)
     * @param removed the targets whose override was removed
     * @param complete whether {@code set} is everything the source holds
     */
    record Changes(long version, List<LimitOverride> set, List<LimitOverride.Target> removed, boolean complete) {
    }
}
