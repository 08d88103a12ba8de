package dev.slidegate.core;

import java.util.concurrent.CompletionStage;
import java.util.function.BiConsumer;

import dev.slidegate.api.Policy;

/**
 * Inspection whose resets also reach what the decisions' stack remembers of a key on this instance (the
 * fail modes' local windows, remembered refusals): told before the store forgets the key, and again
 * once it has, so that a decision answered in between is not remembered past the reset.
 */
public final class ResetHooks extends ForwardingInspection {

    private final BiConsumer<Policy, String> onReset;

    public ResetHooks(StoreInspection delegate, BiConsumer<Policy, String> onReset) {
        super(delegate);
        this.onReset = onReset;
    }

    @Override
    public CompletionStage<Void> reset(Policy policy, String key) {
        onReset.accept(policy, key);
        return delegate.reset(policy, key).thenRun(() -> onReset.accept(policy, key));
    }
}
