package dev.slidegate.core;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A remote store with a way out: when it fails (an error, or no answer within its time budget) or
 * its {@link Breaker} is open, each policy's {@link FailMode} decides: {@code open} admits,
 * {@code closed} refuses (the caller gets 503), {@code local} decides in process at N ÷ instances.
 * Nothing is retried here: a call that timed out may have run and charged the caller already.
 * Admin reads ({@code peek}, {@code keys}, {@code count}) and {@code reset} always go to the remote store.
 */
public final class FallbackStore extends ForwardingStore {

    private final LimiterStore local;
    private final int instances;
    private final Breaker breaker;
    /** Each policy's share, by name (hashing the whole policy record per call would cost more than the lookup saves). */
    private final Map<String, Share> shares = new ConcurrentHashMap<>();

    private record Share(Policy of, Policy share) {
    }

    private volatile java.util.function.Consumer<Throwable> onError = e -> {
    };

    public FallbackStore(LimiterStore remote, LimiterStore local, int instances, Breaker breaker) {
        super(remote);
        this.local = local;
        this.instances = Math.max(1, instances);
        this.breaker = breaker;
    }

    public Breaker breaker() {
        return breaker;
    }

    /** The store this one falls back from (Redis). */
    public LimiterStore remote() {
        return delegate;
    }

    /** Called on every failed call to the remote store (each one is then decided by the fail mode); e.g. for metrics. */
    public void onError(java.util.function.Consumer<Throwable> listener) {
        this.onError = listener;
    }

    @Override
    public CompletionStage<Decision> acquire(Policy policy, String key, int cost) {
        if (!breaker.allowRequest()) {
            return fallback(policy, key, cost, null);
        }
        return delegate.acquire(policy, key, cost).handle((d, error) -> {
            if (error == null) {
                breaker.success();
                return CompletableFuture.completedFuture(d);
            }
            Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null ? error.getCause() : error;
            breaker.failure(cause);
            onError.accept(cause);
            return fallback(policy, key, cost, cause);
        }).thenCompose(stage -> stage);
    }

    private CompletionStage<Decision> fallback(Policy policy, String key, int cost, Throwable cause) {
        return switch (policy.failMode()) {
            case OPEN -> {
                yield CompletableFuture.completedFuture(new Decision(policy, true, -1, 0, 0, LimitState.untouched(policy.limits()), true));
            }
            case CLOSED -> CompletableFuture.failedFuture(new StoreUnavailableException(
                    "the " + delegate.name() + " store cannot decide and policy '" + policy.name() + "' fails closed"
                            + (cause == null ? " (skipped while it recovers)" : ": " + cause.getMessage()), cause));
            case LOCAL -> local.acquire(share(policy), key, cost).thenApply(d -> new Decision(policy, d.allowed(), d.trippedIndex(),
                    d.retryAfterMicros(), d.atMicros(), d.states(), true));
        };
    }

    /** This instance's share of a policy: every N divided by the number of instances (at least 1). */
    private Policy share(Policy p) {
        if (instances == 1) {
            return p;
        }
        Share s = shares.get(p.name());
        if (s == null || !s.of().equals(p)) {
            s = new Share(p, new Policy(p.name(), p.limits().stream().map(l -> new Limit(Math.max(1, l.permits() / instances), l.windowMicros()))
                    .toList(), p.strategy(), p.key(), p.countRejected(), p.dryRun(), p.cells(), p.failMode()));
            shares.put(p.name(), s);
        }
        return s.share();
    }

    @Override
    public CompletionStage<Void> reset(Policy policy, String key) {
        local.reset(share(policy), key);
        return delegate.reset(policy, key);
    }
}
