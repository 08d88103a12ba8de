package dev.slidegate.core;

import java.util.concurrent.CompletionStage;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Policy;

/**
 * Permits taken ahead (issue 61): a shared store's capability of handing an instance a batch of a sliding log's permits
 * in one call, which the instance admits calls of a hot key from until they are used or their time is up
 * ({@link HotKeys}). The store records each permit of a batch as if it were used at the last instant it may be used
 * at, and counts it from the instant it was taken: every window that could hold its use counts it, so the fleet admits
 * at most N in any window of W however the batch is used. What the instance did not use it gives back.
 */
public interface PermitsAhead {

    /**
     * Whether a store can take permits of {@code policy} ahead: a sliding log (a batch counts in every window its use
     * could fall in), a sliding counter (a batch is used before its cell ends), or a fixed window without calendar
     * periods (before the first of its windows ends). Not a token bucket (docs/strategies.md, "Hot keys on Redis").
     */
    static boolean takesAhead(Policy policy) {
        return policy.strategy() == dev.slidegate.api.Strategy.SLIDING_LOG
                || policy.strategy() == dev.slidegate.api.Strategy.SLIDING_COUNTER
                || (policy.strategy() == dev.slidegate.api.Strategy.FIXED_WINDOW
                        && policy.limits().stream().noneMatch(dev.slidegate.api.Limit::calendar));
    }

    /**
     * What a take said.
     *
     * @param decision an admission of the asking call's cost (its instant the batch's: {@link #takenAtMicros()}), or
     *        its refusal, as {@link Rates#acquire} would say it
     * @param permits how many the batch holds, the asking call's cost included; 0 when refused
     * @param lastUseMicros the instant (store's clock, µs) a permit of the batch must be used before: the instant it was
     *        taken at plus its usable time, or the end of a fixed window that ends sooner
     */
    record Taken(Decision decision, int permits, long lastUseMicros) {

        /** The store's instant the batch was taken at: its permits' names. */
        public long takenAtMicros() {
            return decision.atMicros();
        }
    }

    /**
     * Takes {@code cost} to {@code most} permits of {@code policy} ({@link #takesAhead}) for {@code key} at once, as many as
     * every limit has room for now, usable for {@code usableMicros} from now at most; fewer than {@code cost} is a refusal
     * that charges nothing. Never while a call waits for the key or the key is held.
     */
    CompletionStage<Taken> takeAhead(Policy policy, String key, int cost, int most, long usableMicros);

    /**
     * Gives back permits {@code from} to {@code to} (1-based, of {@link Taken#permits()}) of the batch taken at
     * {@code takenAtMicros}, none of which was used nor will be.
     *
     * @return how many the store still counted and gave back
     */
    CompletionStage<Integer> giveBack(Policy policy, String key, long takenAtMicros, int from, int to);
}
