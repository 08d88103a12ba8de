package dev.slidegate.entry;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

import jakarta.inject.Singleton;

import dev.slidegate.api.Decision;
import dev.slidegate.api.PlanResolver;
import dev.slidegate.api.RateLimiter;
import dev.slidegate.config.PolicyCatalog;
import dev.slidegate.engine.CallerKeys;
import dev.slidegate.engine.Decider;
import dev.slidegate.engine.MethodPolicy;
import dev.slidegate.engine.Outcome;
import dev.slidegate.engine.Settlements;
import dev.slidegate.engine.Upstreams;
import io.quarkus.arc.Arc;
import io.quarkus.runtime.BlockingOperationControl;
import io.quarkus.vertx.http.runtime.CurrentVertxRequest;
import io.vertx.ext.web.RoutingContext;

/**
 * The shipped {@link RateLimiter}: policies by name from the {@link PolicyCatalog}, keys made safe like every other
 * key, decided by the one {@link Decider} as every annotated call is: the same plans (read from the
 * current HTTP request, when the call happens during one), overrides, counting and logging. Its
 * adapter turns the {@link Outcome} into a {@link Decision}, admitted or refused (a dry-run policy's
 * refusal is answered as it is), or a failure when nothing could decide.
 */
@Singleton
class ProgrammaticLimiter implements RateLimiter {

    private final Decider decider;
    private final CurrentVertxRequest currentRequest;
    private final Upstreams upstreams;
    private final PlanResolver plans;
    /** Every policy of the catalog, as this API decides it. */
    private final Map<String, MethodPolicy> policies;

    private final dev.slidegate.core.DecisionStore store;
    private final Exchanges exchanges;

    ProgrammaticLimiter(PolicyCatalog catalog, Decider decider, CurrentVertxRequest currentRequest, Upstreams upstreams,
            PlanResolver plans, dev.slidegate.core.DecisionStore store, Exchanges exchanges) {
        this.exchanges = exchanges;
        this.store = store;
        this.decider = decider;
        this.currentRequest = currentRequest;
        this.upstreams = upstreams;
        this.plans = plans;
        Map<String, MethodPolicy> all = new HashMap<>();
        catalog.policies().forEach(
                (n, r) -> all.put(n, new MethodPolicy("RateLimiter.acquire(\"" + n + "\")", r, MethodPolicy.Kind.STAGE)));
        this.policies = Map.copyOf(all);
    }

    @Override
    public CompletionStage<Decision> acquire(String policy, String key, int cost) {
        return acquire(policy, key, cost, -1, true);
    }

    @Override
    public CompletionStage<Decision> acquire(String policy, String key, int cost, Duration maxWait) {
        return acquire(policy, key, cost, micros(maxWait), true);
    }

    /**
     * @param maxWait microseconds, or -1 for the policy's
     * @param onCallersContext whether to complete on the caller's Vert.x context (not for a caller that blocks on it)
     */
    private CompletionStage<Decision> acquire(String policy, String key, int cost, long maxWait, boolean onCallersContext) {
        return outcome(policy, key, cost, maxWait, onCallersContext).thenCompose(ProgrammaticLimiter::decision);
    }

    private CompletionStage<Outcome> outcome(String policy, String key, int cost, long maxWait, boolean onCallersContext) {
        if (cost < 1) {
            throw new IllegalArgumentException("A cost is a whole number of permits, at least 1, not " + cost);
        }
        MethodPolicy mp = policy(policy);
        if (mp.policy().inFlight()) {
            throw new IllegalArgumentException("RateLimiter: policy '" + mp.name() + "' limits calls in flight "
                    + "(max-in-flight), whose leases end when a call is done: limit such a call with @RateLimited on the "
                    + "method that makes it");
        }
        String k = key(key);
        // the request is only where a plan is read: not looked up for a policy without plans
        RoutingContext rc = !mp.plans().isEmpty() && Arc.container().requestContext().isActive() ? currentRequest.getCurrent()
                : null;
        return decider.decide(mp, k, cost, maxWait, exchanges.of(rc), onCallersContext);
    }

    @Override
    public CompletionStage<Void> learn(String policy, String key, int status,
            java.util.function.Function<String, List<String>> headers) {
        MethodPolicy mp = policy(policy);
        if (!mp.outgoing()) {
            throw new IllegalArgumentException("RateLimiter.learn: policy '" + mp.name() + "' limits requests this service "
                    + "answers; a policy that paces calls to an upstream says so: slidegate.policies." + mp.name()
                    + ".outgoing=true");
        }
        if (headers == null) {
            throw new IllegalArgumentException("RateLimiter.learn needs the response's header fields (name -> values)");
        }
        String k = key(key);
        RoutingContext rc = !mp.plans().isEmpty() && Arc.container().requestContext().isActive() ? currentRequest.getCurrent()
                : null;
        return upstreams.learn(mp.policyFor(plans, new Object[] { k }, exchanges.of(rc)), k, status, safely(headers));
    }

    @Override
    public CompletionStage<Void> settle(Decision admitted, String key, int estimate, long used) {
        if (admitted == null) {
            throw new IllegalArgumentException("RateLimiter.settle needs the decision acquire answered");
        }
        MethodPolicy mp = ownerOf(admitted.policy());
        if (!mp.settlement().settles()) {
            throw new IllegalArgumentException("RateLimiter.settle: policy '" + mp.name() + "' does not settle its calls: "
                    + "set slidegate.policies." + mp.name() + ".settle=true (its calls are then admitted against their "
                    + "cost as an estimate)");
        }
        dev.slidegate.core.DecisionStore.settlement(admitted.policy(), estimate, used); // the rules every store applies
        String k = key(key);
        if (used == estimate || !Settlements.charged(admitted)) {
            return CompletableFuture.completedFuture(null);
        }
        return store.settle(admitted.policy(), k, admitted.atMicros(), estimate, used).thenApply(at -> null);
    }

    /** The policy a decision was made under: one of the catalog's, or one of its plans'. */
    private MethodPolicy ownerOf(dev.slidegate.api.Policy decided) {
        MethodPolicy mp = policies.get(decided.name());
        if (mp != null) {
            return mp;
        }
        for (MethodPolicy each : policies.values()) {
            if (each.plans().values().stream().anyMatch(p -> p.name().equals(decided.name()))) {
                return each;
            }
        }
        return policy(decided.name());
    }

    /** Header fields read by code the service gave: a lookup that throws is a field that is absent. */
    private static java.util.function.Function<String, List<String>> safely(
            java.util.function.Function<String, List<String>> headers) {
        return name -> {
            try {
                return headers.apply(name);
            } catch (RuntimeException e) {
                return null;
            }
        };
    }

    private static long micros(Duration maxWait) {
        if (maxWait == null || maxWait.isNegative() || maxWait.compareTo(Duration.ofDays(1)) > 0) {
            throw new IllegalArgumentException("RateLimiter: a maximum wait lies between 0 (refuse at once) and one day, not "
                    + maxWait);
        }
        return maxWait.toNanos() / 1000;
    }

    /** The outcome as a {@link RateLimiter} answers it: the decision, admitted or refused, or a failed stage. */
    private static CompletionStage<Decision> decision(Outcome o) {
        if (o instanceof Outcome.Refused r) {
            return CompletableFuture.completedFuture(r.decision());
        }
        if (o.admitted()) {
            List<Decision> made = o.decisions();
            return CompletableFuture.completedFuture(made.get(made.size() - 1));
        }
        return CompletableFuture.failedFuture(o.failure());
    }

    @Override
    public Decision acquireBlocking(String policy, String key, int cost) {
        return blocking(outcome(policy, key, cost, -1, false));
    }

    @Override
    public Decision acquireBlocking(String policy, String key, int cost, Duration maxWait) {
        return blocking(outcome(policy, key, cost, micros(maxWait), false));
    }

    /**
     * The decision, once this thread may go on: a call released from a hold that this thread takes up too late for its
     * permit (it woke long after the timer released it) is decided again ({@link Decider#startingNow}).
     */
    private Decision blocking(CompletionStage<Outcome> stage) {
        CompletableFuture<Outcome> o = stage.toCompletableFuture();
        if (!o.isDone() && !BlockingOperationControl.isBlockingAllowed()) {
            throw new IllegalStateException(
                    "RateLimiter.acquireBlocking cannot wait for a remote decision or a permit on an I/O thread: use "
                            + "acquire, which returns a CompletionStage");
        }
        try {
            return decision(decider.startingNow(o.join())).toCompletableFuture().join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : e;
        }
    }

    private MethodPolicy policy(String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("RateLimiter needs a policy name");
        }
        MethodPolicy mp = policies.get(name.trim());
        if (mp == null) {
            throw new IllegalArgumentException(
                    "RateLimiter: there is no policy '" + name.trim() + "': configure slidegate.policies."
                            + name.trim() + ".limits, or name the policy of a @RateLimited method; the policies are "
                            + new java.util.TreeSet<>(policies.keySet()));
        }
        return mp;
    }

    private static String key(String raw) {
        if (raw == null || raw.isBlank()) {
            throw new IllegalArgumentException(
                    "RateLimiter needs a caller key: null or blank would put every caller in one bucket");
        }
        return CallerKeys.bounded(CallerKeys.custom(raw.trim()));
    }
}
