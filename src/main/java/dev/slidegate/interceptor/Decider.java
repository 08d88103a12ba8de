package dev.slidegate.interceptor;

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
import dev.slidegate.http.Problems;
import io.quarkus.runtime.BlockingOperationControl;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.ext.web.RoutingContext;

/**
 * Decides one call against its policies: the single pipeline behind the interceptor, the request
 * filter and the path limiter, which only adapt its {@link Verdict} to their callers.
 *
 * <p>
 * For one call it resolves every policy's key and plan first (so a missing key charges nothing),
 * then acquires the policies in order; the first refusal answers and later policies are not asked.
 * Each decision is recorded ({@link Admission}: statistics, RateLimit fields, the refusal log), and
 * every failure becomes a refusal exactly here: a missing key 400, an undecided store 503, anything
 * else (a resolver's bug) 500, logged once. The verdict never fails.
 */
@Singleton
class Decider {

    private static final Logger LOG = Logger.getLogger("dev.slidegate");

    /**
     * One policy's part in one call: what to ask the store.
     *
     * @param override the override that decides it, or {@code null}
     */
    private record Ask(MethodPolicy mp, Policy policy, String key, Overrides.Active override) {
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
     * Decides a call of a method with {@code policies}, never blocking. The verdict completes on the
     * caller's Vert.x context (inline when the store answers there), so what follows sees its request.
     *
     * @param args the call's arguments (empty for a request decided before dispatch)
     * @param rc the HTTP request, or {@code null} outside HTTP
     */
    CompletionStage<Verdict> decide(List<MethodPolicy> policies, Object[] args, RoutingContext rc) {
        return decide(policies, args, rc, resumeOn(Vertx.currentContext()));
    }

    /**
     * Decides and waits for the verdict, for a method that returns a plain value. Waiting is only
     * allowed off the event loop; an in-process decision never waits.
     *
     * @throws IllegalStateException on an event loop when the store has not answered at once
     */
    Verdict decideAndWait(List<MethodPolicy> policies, Object[] args, RoutingContext rc) {
        // the waiting thread is the caller: continue on whichever thread the store answers
        CompletableFuture<Verdict> verdict = decide(policies, args, rc, Runnable::run).toCompletableFuture();
        if (!verdict.isDone() && !BlockingOperationControl.isBlockingAllowed()) {
            throw new IllegalStateException(policies.get(0).where()
                    + " returns a plain value but runs on an I/O thread, where a "
                    + "remote rate-limit decision cannot be awaited: return Uni or CompletionStage, or annotate it @Blocking");
        }
        return verdict.join();
    }

    private CompletionStage<Verdict> decide(List<MethodPolicy> policies, Object[] args, RoutingContext rc, Executor resume) {
        Ask[] asks = new Ask[policies.size()];
        try {
            for (int i = 0; i < asks.length; i++) { // keys and plans are read now, on the caller's thread, where the request is
                MethodPolicy mp = policies.get(i);
                Policy policy = mp.policyFor(plans, args, rc);
                String key = keys.resolve(mp, args, rc);
                asks[i] = new Ask(mp, policy, key, overrides.isEmpty() ? null : overrides.find(mp.name(), policy, key));
            }
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(refusal(e, policies.get(0)));
        }
        CompletableFuture<Verdict> verdict = new CompletableFuture<>();
        acquire(asks, 0, rc, resume, verdict);
        return verdict;
    }

    private void acquire(Ask[] asks, int i, RoutingContext rc, Executor resume, CompletableFuture<Verdict> verdict) {
        if (i == asks.length) {
            verdict.complete(Verdict.ADMITTED);
            return;
        }
        Ask a = asks[i];
        CompletionStage<Decision> decision;
        try {
            decision = overrides.acquire(a.override(), store, a.policy(), a.key(), a.mp().cost());
        } catch (RuntimeException e) {
            verdict.complete(storeFailure(e));
            return;
        }
        decision.whenComplete((d, error) -> resume.execute(() -> {
            try {
                if (error != null) {
                    verdict.complete(storeFailure(error));
                } else if (admission.refuse(d, rc)) {
                    RateLimitExceededException refused = new RateLimitExceededException(d, a.mp().cost());
                    verdict.complete(new Verdict(Problems.rateLimited(refused), refused));
                } else {
                    acquire(asks, i + 1, rc, resume, verdict);
                }
            } catch (RuntimeException e) {
                verdict.complete(refusal(e, a.mp()));
            }
        }));
    }

    private static Verdict storeFailure(Throwable error) {
        Throwable e = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        StoreUnavailableException unavailable = e instanceof StoreUnavailableException s ? s
                : new StoreUnavailableException("The rate-limit store failed: " + e, e);
        LOG.debugf("Rate-limit store unavailable: %s", unavailable.getMessage()); // the breaker logs outages once, not per request
        return new Verdict(Problems.storeUnavailable(), unavailable);
    }

    private static Verdict refusal(RuntimeException e, MethodPolicy mp) {
        if (e instanceof MissingRateLimitKeyException missing) {
            return new Verdict(Problems.missingKey(missing.policy(), missing.getMessage()), missing);
        }
        LOG.errorf(e, "%s: policy '%s' could not decide a call", mp.where(), mp.policy().name());
        return new Verdict(Problems.of(500, "Internal Server Error", "decision-failed",
                "The rate limiter could not decide this request: policy '" + mp.policy().name()
                        + "' failed to find the caller's key or plan."),
                e);
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
