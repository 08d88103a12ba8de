package dev.slidegate.interceptor;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.inject.Singleton;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Policy;
import dev.slidegate.api.RateLimiter;
import dev.slidegate.config.PolicyRegistry;
import dev.slidegate.core.DecisionStore;
import dev.slidegate.core.Overrides;
import io.quarkus.runtime.BlockingOperationControl;
import io.quarkus.runtime.configuration.ConfigurationException;

/** The shipped {@link RateLimiter}: policies by name from the registry, keys made safe like every other key. */
@Singleton
class ProgrammaticLimiter implements RateLimiter {

    private final PolicyRegistry registry;
    private final DecisionStore store;
    private final Admission admission;
    private final Overrides overrides;
    private final Map<String, Policy> policies = new ConcurrentHashMap<>();

    ProgrammaticLimiter(PolicyRegistry registry, DecisionStore store, Admission admission, Overrides overrides) {
        this.registry = registry;
        this.store = store;
        this.admission = admission;
        this.overrides = overrides;
    }

    @Override
    public java.util.concurrent.CompletionStage<Decision> acquire(String policy, String key, int cost) {
        if (cost < 1) {
            throw new IllegalArgumentException("A cost is a whole number of permits, at least 1, not " + cost);
        }
        Policy p = policy(policy);
        String k = key(key);
        return overrides.acquire(overrides.isEmpty() ? null : overrides.find(p.name(), p, k), store, p, k, cost)
                .thenApply(d -> {
                    admission.refuse(d, null); // counted and logged like every decision
                    return d;
                });
    }

    @Override
    public Decision acquireAndWait(String policy, String key, int cost) {
        CompletableFuture<Decision> d = acquire(policy, key, cost).toCompletableFuture();
        if (!d.isDone() && !BlockingOperationControl.isBlockingAllowed()) {
            throw new IllegalStateException(
                    "RateLimiter.acquireAndWait cannot wait for a remote decision on an I/O thread: use acquire, "
                            + "which returns a CompletionStage");
        }
        try {
            return d.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : e;
        }
    }

    private Policy policy(String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("RateLimiter needs a policy name");
        }
        return policies.computeIfAbsent(name.trim(), n -> {
            try {
                return registry.resolve(new PolicyRegistry.Declared(n, List.of(), "", ""), "RateLimiter.acquire(\"" + n + "\")")
                        .policy();
            } catch (ConfigurationException e) {
                throw new IllegalArgumentException(e.getMessage(), e);
            }
        });
    }

    private static String key(String raw) {
        if (raw == null || raw.isBlank()) {
            throw new IllegalArgumentException(
                    "RateLimiter needs a caller key: null or blank would put every caller in one bucket");
        }
        return CallerKeys.bounded(CallerKeys.custom(raw.trim()));
    }
}
