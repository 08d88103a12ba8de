package dev.slidegate.core;

import java.util.Arrays;

import dev.slidegate.api.Decision;
import dev.slidegate.api.LimitState;
import dev.slidegate.api.Policy;

/**
 * One decision written into storage its caller keeps and reuses: what a {@link Decision} says (the outcome, the
 * refusing limit, the wait, the instant, and per limit the permits remaining and the time to the next one), without
 * allocating anything per decision once it has room for the policy's limits. A caller that decides many calls on one
 * thread (a benchmark, a loop) keeps one; {@link #toDecision} makes the immutable value when one is needed.
 *
 * <p>
 * Not thread safe: one buffer belongs to one thread at a time, and each decision written overwrites the last.
 */
public final class DecisionBuffer {

    private Policy policy;
    private boolean allowed;
    private int trippedIndex = -1;
    private long retryAfterMicros;
    private long atMicros;
    private long waitMicros;
    private int size;
    private long[] remaining;
    private long[] resetMicros;

    /** A buffer with room for two limits (it grows for more). */
    public DecisionBuffer() {
        this(2);
    }

    /** A buffer with room for {@code limits} limits (it grows for more). */
    public DecisionBuffer(int limits) {
        remaining = new long[limits];
        resetMicros = new long[limits];
    }

    /**
     * Starts a decision of {@code limits} limits (each then written by {@link #limit}); {@code waitMicros} as
     * {@link Decision#waitMicros()}.
     */
    public void decided(Policy policy, boolean allowed, int trippedIndex, long retryAfterMicros, long atMicros,
            long waitMicros, int limits) {
        this.policy = policy;
        this.waitMicros = waitMicros;
        this.allowed = allowed;
        this.trippedIndex = trippedIndex;
        this.retryAfterMicros = retryAfterMicros;
        this.atMicros = atMicros;
        if (limits > remaining.length) {
            remaining = Arrays.copyOf(remaining, limits);
            resetMicros = Arrays.copyOf(resetMicros, limits);
        }
        size = limits;
    }

    /** Limit {@code i} of the decision: its permits remaining and the microseconds until one more is available. */
    public void limit(int i, long remaining, long resetMicros) {
        this.remaining[i] = remaining;
        this.resetMicros[i] = resetMicros;
    }

    public Policy policy() {
        return policy;
    }

    public boolean allowed() {
        return allowed;
    }

    /** As {@link Decision#trippedIndex()}. */
    public int trippedIndex() {
        return trippedIndex;
    }

    public long retryAfterMicros() {
        return retryAfterMicros;
    }

    public long atMicros() {
        return atMicros;
    }

    /** As {@link Decision#waitMicros()}. */
    public long waitMicros() {
        return waitMicros;
    }

    /** How many limits the decision holds: those of its policy. */
    public int limits() {
        return size;
    }

    /** The permits limit {@code i} still has. */
    public long remaining(int i) {
        return remaining[i];
    }

    /** Microseconds until limit {@code i} has one more permit (0 when nothing of it is in use). */
    public long resetMicros(int i) {
        return resetMicros[i];
    }

    /** The decision as the immutable value the API speaks. */
    public Decision toDecision() {
        LimitState[] states = new LimitState[size];
        for (int i = 0; i < size; i++) {
            states[i] = new LimitState(policy.limits().get(i), remaining[i], resetMicros[i]);
        }
        return new Decision(policy, allowed, trippedIndex, retryAfterMicros, atMicros, java.util.List.of(states), false,
                waitMicros);
    }
}
