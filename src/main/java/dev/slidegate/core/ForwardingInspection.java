package dev.slidegate.core;

import java.util.Collection;
import java.util.Map;
import java.util.concurrent.CompletionStage;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Policy;

/**
 * Inspection that asks another for everything: a decorator (resets that reach the decisions' stack, a waiting policy's
 * wider windows, a test's slow reads) overrides the calls it adds to.
 */
public class ForwardingInspection implements StoreInspection {

    protected final StoreInspection delegate;

    public ForwardingInspection(StoreInspection delegate) {
        this.delegate = delegate;
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

    @Override
    public CompletionStage<Long> oldestLeaseAge(Policy policy, String key) {
        return delegate.oldestLeaseAge(policy, key);
    }

    @Override
    public CompletionStage<Void> reset(Policy policy, String key) {
        return delegate.reset(policy, key);
    }
}
