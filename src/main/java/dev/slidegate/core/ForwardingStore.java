package dev.slidegate.core;

import java.util.Collection;
import java.util.Map;
import java.util.concurrent.CompletionStage;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Policy;

/** A store that hands every call to another; decorators override what they add to. */
public abstract class ForwardingStore implements LimiterStore {

    protected final LimiterStore delegate;

    protected ForwardingStore(LimiterStore delegate) {
        this.delegate = delegate;
    }

    @Override
    public String name() {
        return delegate.name();
    }

    @Override
    public CompletionStage<Decision> acquire(Policy policy, String key, int cost) {
        return delegate.acquire(policy, key, cost);
    }

    @Override
    public CompletionStage<Void> reset(Policy policy, String key) {
        return delegate.reset(policy, key);
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
    public CompletionStage<Long> count(Policy policy) {
        return delegate.count(policy);
    }

    @Override
    public CompletionStage<Map<String, Long>> counts(Collection<Policy> policies) {
        return delegate.counts(policies);
    }
}
