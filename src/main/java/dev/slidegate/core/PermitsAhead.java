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
     * What a take said.
     *
     * @param decision an admission of the asking call's cost (its instant the batch's: {@link #takenAtMicros()}), or
     *        its refusal, as {@link Rates#acquire} would say it
     * @param permits how many the batch holds, the asking call's cost included; 0 when refused
     * @param lastUseMicros the last instant (store's clock, µs) a permit of the batch may be used at
     */
    record Taken(Decision decision, int permits, long lastUseMicros) {

        /** The store's instant the batch was taken at: its permits' names. */
        public long takenAtMicros() {
            return decision.atMicros();
        }
    }

    /**
     * Takes {@code cost} to {@code most} permits of a sliding-log policy for {@code key} at once, as many as every limit
     * has room for now, usable for {@code usableMicros} from now; fewer than {@code cost} is a refusal that charges
     * nothing. Never while a call waits for the key or the key is held.
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
