package dev.slidegate.interceptor;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import dev.slidegate.api.Decision;
import dev.slidegate.api.MissingRateLimitKeyException;
import dev.slidegate.api.PlanResolver;
import dev.slidegate.api.Policy;
import dev.slidegate.api.RateLimitExceededException;
import dev.slidegate.api.StoreUnavailableException;
import dev.slidegate.core.DecisionStore;
import dev.slidegate.core.Overrides;
import io.quarkus.runtime.BlockingOperationControl;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.ext.web.RoutingContext;

/**
 * Decides one call against its policies: the single pipeline behind every entry point (the
 * interceptor, the request filter, the path limiter and the {@link dev.slidegate.api.RateLimiter}),
 * which only adapt its {@link Outcome} to their callers. Nothing here speaks HTTP: the request, when
 * there is one, is only where keys and plans are read.
 *
 * <p>
 * For one call it resolves every policy's key and plan first (so a missing key charges nothing), finds
 * the override in force, then acquires the policies in order; the first refusal answers and later
 * policies are not asked. Each decision is counted and logged ({@link Admission}), and every failure
 * becomes an outcome exactly here: a missing key, an undecided store, anything else (a resolver's
 * bug), logged once. The outcome never fails.
 */
@Singleton
class Decider {

    private static final Logger LOG = Logger.getLogger("dev.slidegate");

    /**
     * One policy's part in one call: what to ask the store.
     *
     * @param override the override that decides it, or {@code null}
     */
    private record Ask(MethodPolicy mp, Policy policy, String key, int cost, Overrides.Active override) {
    }

    private final CallerKeys keys;
    private final DecisionStore store;
    private final PlanResolver plans;
    private final Admission admission;
    private final Overrides overrides;

    Decider(CallerKeys keys, DecisionStore store, PlanResolver plans, Admission admission, Overrides overrides) {
        this.keys = keys;
        this.store = store;
        this.plans = plans;
        this.admission = admission;
        this.overrides = overrides;
    }

    /**
     * Decides a call of a method with {@code policies}, never blocking. The outcome completes on the
     * caller's Vert.x context (inline when the store answers there), so what follows sees its request.
     *
     * @param args the call's arguments (empty for a request decided before dispatch)
     * @param rc the HTTP request, or {@code null} outside HTTP
     */
    CompletionStage<Outcome> decide(List<MethodPolicy> policies, Object[] args, RoutingContext rc) {
        return decide(policies, args, rc, resumeOn(Vertx.currentContext()));
    }

    /**
     * Decides a call whose key the code gives ({@link dev.slidegate.api.RateLimiter}): the same plans
     * (read from {@code rc} when the call happens during a request), overrides, counting and logging as
     * every other entry point; completes wherever the store answers.
     */
    CompletionStage<Outcome> decide(MethodPolicy mp, String key, int cost, RoutingContext rc) {
        Ask ask;
        try {
            ask = ask(mp, mp.policyFor(plans, new Object[] { key }, rc), key, cost);
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(failure(e, mp, List.of()));
        }
        CompletableFuture<Outcome> outcome = new CompletableFuture<>();
        acquire(new Ask[] { ask }, 0, Runnable::run, List.of(), outcome);
        return outcome;
    }

    /**
     * Decides and waits for the outcome, for a method that returns a plain value. Waiting is only
     * allowed off the event loop; an in-process decision never waits.
     *
     * @throws IllegalStateException on an event loop when the store has not answered at once
     */
    Outcome decideAndWait(List<MethodPolicy> policies, Object[] args, RoutingContext rc) {
        // the waiting thread is the caller: continue on whichever thread the store answers
        CompletableFuture<Outcome> outcome = decide(policies, args, rc, Runnable::run).toCompletableFuture();
        if (!outcome.isDone() && !BlockingOperationControl.isBlockingAllowed()) {
            throw new IllegalStateException(policies.get(0).where()
                    + " returns a plain value but runs on an I/O thread, where a "
                    + "remote rate-limit decision cannot be awaited: return Uni or CompletionStage, or annotate it @Blocking");
        }
        return outcome.join();
    }

    private CompletionStage<Outcome> decide(List<MethodPolicy> policies, Object[] args, RoutingContext rc, Executor resume) {
        Ask[] asks = new Ask[policies.size()];
        try {
            for (int i = 0; i < asks.length; i++) { // keys and plans are read now, on the caller's thread, where the request is
                MethodPolicy mp = policies.get(i);
                asks[i] = ask(mp, mp.policyFor(plans, args, rc), keys.resolve(mp, args, rc), mp.cost());
            }
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(failure(e, policies.get(0), List.of()));
        }
        CompletableFuture<Outcome> outcome = new CompletableFuture<>();
        acquire(asks, 0, resume, List.of(), outcome);
        return outcome;
    }

    /** One policy's part in a call, with the override in force for its key (none looked up when none is loaded). */
    private Ask ask(MethodPolicy mp, Policy policy, String key, int cost) {
        return new Ask(mp, policy, key, cost, overrides.isEmpty() ? null : overrides.find(mp.name(), policy, key));
    }

    /** @param made the decisions made so far for this call, in order */
    private void acquire(Ask[] asks, int i, Executor resume, List<Decision> made, CompletableFuture<Outcome> outcome) {
        if (i == asks.length) {
            outcome.complete(new Outcome.Admitted(made));
            return;
        }
        Ask a = asks[i];
        CompletionStage<Decision> decision;
        try {
            decision = overrides.acquire(a.override(), store, a.policy(), a.key(), a.cost(), 0);
        } catch (RuntimeException e) {
            outcome.complete(storeFailure(e, made));
            return;
        }
        decision.whenComplete((d, error) -> resume.execute(() -> {
            try {
                if (error != null) {
                    outcome.complete(storeFailure(error, made));
                    return;
                }
                List<Decision> now = with(made, d);
                if (admission.refuse(d)) {
                    outcome.complete(new Outcome.Refused(now, new RateLimitExceededException(d, a.cost())));
                } else {
                    acquire(asks, i + 1, resume, now, outcome);
                }
            } catch (RuntimeException e) {
                outcome.complete(failure(e, a.mp(), made));
            }
        }));
    }

    private static List<Decision> with(List<Decision> made, Decision d) {
        if (made.isEmpty()) {
            return List.of(d);
        }
        List<Decision> all = new ArrayList<>(made.size() + 1);
        all.addAll(made);
        all.add(d);
        return all;
    }

    private static Outcome storeFailure(Throwable error, List<Decision> made) {
        Throwable e = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        StoreUnavailableException unavailable = e instanceof StoreUnavailableException s ? s
                : new StoreUnavailableException("The rate-limit store failed: " + e, e);
        LOG.debugf("Rate-limit store unavailable: %s", unavailable.getMessage()); // the breaker logs outages once, not per request
        return new Outcome.StoreUnavailable(made, unavailable);
    }

    private static Outcome failure(RuntimeException e, MethodPolicy mp, List<Decision> made) {
        if (e instanceof MissingRateLimitKeyException missing) {
            return new Outcome.KeyMissing(missing);
        }
        LOG.errorf(e, "%s: policy '%s' could not decide a call", mp.where(), mp.policy().name());
        return new Outcome.Failed(made, mp.policy().name(), e);
    }

    /** Runs continuations on {@code caller} (inline when already there); inline outside Vert.x. */
    private static Executor resumeOn(Context caller) {
        if (caller == null) {
            return Runnable::run;
        }
        return command -> {
            if (Vertx.currentContext() == caller) {
                command.run();
            } else {
                caller.runOnContext(v -> command.run());
            }
        };
    }
}
