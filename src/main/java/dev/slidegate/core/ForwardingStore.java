package dev.slidegate.core;

import java.util.List;
import java.util.concurrent.CompletionStage;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Limit;
import dev.slidegate.api.Policy;

/**
 * A store that asks another for everything: a decorator (waiting for slots, metrics, remembered refusals) overrides
 * the calls it adds to, a test the one call it watches or delays.
 */
public class ForwardingStore implements DecisionStore {

    protected final DecisionStore delegate;

    public ForwardingStore(DecisionStore delegate) {
        this.delegate = delegate;
    }

    @Override
    public java.util.Set<Capability> offers() {
        return delegate.offers();
    }

    /** The store beneath. */
    public DecisionStore delegate() {
        return delegate;
    }

    @Override
    public String name() {
        return delegate.name();
    }

    @Override
    public CompletionStage<Decision> acquire(Policy policy, String key, int cost, long maxWaitMicros) {
        return delegate.acquire(policy, key, cost, maxWaitMicros);
    }

    @Override
    public CompletionStage<List<Decision>> acquireAll(List<Asked> asks) {
        return delegate.acquireAll(asks);
    }

    @Override
    public CompletionStage<Long> settle(Policy policy, String key, long admittedAtMicros, int estimate, long actual) {
        return delegate.settle(policy, key, admittedAtMicros, estimate, actual);
    }

    @Override
    public CompletionStage<Void> refund(Policy policy, String key, long atMicros, int cost) {
        return delegate.refund(policy, key, atMicros, cost);
    }

    @Override
    public CompletionStage<Long> hold(Policy policy, String key, long forMicros) {
        return delegate.hold(policy, key, forMicros);
    }

    @Override
    public CompletionStage<Long> block(Policy policy, String key, long forMicros) {
        return delegate.block(policy, key, forMicros);
    }

    @Override
    public CompletionStage<Long> heldFor(Policy policy, String key) {
        return delegate.heldFor(policy, key);
    }

    @Override
    public CompletionStage<Void> learn(Policy policy, String key, List<Limit> limits, long forMicros) {
        return delegate.learn(policy, key, limits, forMicros);
    }

    @Override
    public CompletionStage<List<Limit>> learned(Policy policy, String key) {
        return delegate.learned(policy, key);
    }

    @Override
    public CompletionStage<Decision> enter(Policy policy, String key, long maxWaitMicros) {
        return delegate.enter(policy, key, maxWaitMicros);
    }

    @Override
    public CompletionStage<java.util.List<Long>> renew(Policy policy, String key, java.util.List<Long> leases) {
        return delegate.renew(policy, key, leases);
    }

    @Override
    public CompletionStage<Turn> queue(Policy policy, String key, java.util.List<Long> tickets, long lapseMicros) {
        return delegate.queue(policy, key, tickets, lapseMicros);
    }

    @Override
    public CompletionStage<Void> unqueue(Policy policy, String key, java.util.List<Long> tickets) {
        return delegate.unqueue(policy, key, tickets);
    }

    @Override
    public CompletionStage<java.util.List<Long>> leave(Policy policy, String key, java.util.List<Long> leases) {
        return delegate.leave(policy, key, leases);
    }
}
