package dev.slidegate.core;

import java.util.Collection;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.function.BiConsumer;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Policy;

/**
 * Inspection whose resets also reach what the decisions' stack remembers of a key on this instance (the
 * fail modes' local windows, remembered refusals): told before the store forgets the key, and again
 * once it has, so that a decision answered in between is not remembered past the reset.
 */
public final class ResetHooks implements StoreInspection {

    private final StoreInspection delegate;
    private final BiConsumer<Policy, String> onReset;

    public ResetHooks(StoreInspection delegate, BiConsumer<Policy, String> onReset) {
        this.delegate = delegate;
        this.onReset = onReset;
    }

    @Override
    public CompletionStage<Void> reset(Policy policy, String key) {
        onReset.accept(policy, key);
        return delegate.reset(policy, key).thenRun(() -> onReset.accept(policy, key));
    }

    @Override
    public CompletionStage<Decision> peek(Policy policy, String key) {
        return delegate.peek(policy, key);
    }

    @Override
    public CompletionStage<KeyPage> keys(Policy policy, String cursor, int limit) {
        return delegate.keys(policy, cursor, limit);
    }

    @Override
    public CompletionStage<Long> oldestLeaseAge(Policy policy, String key) {
        return delegate.oldestLeaseAge(policy, key);
    }

    @Override
    public CompletionStage<Long> count(Policy policy) {
        return delegate.count(policy);
    }

    @Override
    public CompletionStage<Map<String, Long>> counts(Collection<Policy> policies) {
        return delegate.counts(policies);
    }
}
