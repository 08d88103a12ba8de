package dev.slidegate.interceptor;

import dev.slidegate.config.SlidegateConfig;
import dev.slidegate.core.Decision;
import dev.slidegate.core.LimiterStore;
import dev.slidegate.core.Policy;
import dev.slidegate.core.RateLimitExceededException;
import dev.slidegate.http.HttpDecisions;
import io.quarkus.arc.Arc;
import io.quarkus.runtime.BlockingOperationControl;
import io.quarkus.vertx.http.runtime.CurrentVertxRequest;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.ext.web.RoutingContext;
import jakarta.annotation.Priority;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;

/**
 * Applies {@link RateLimited}: resolves the method's policy (cached), computes the caller's key, asks
 * the store, and lets the call through or refuses it. It computes nothing itself.
 *
 * <p>{@code Uni} and {@code CompletionStage} methods never block: the method runs when the store
 * answers, back on the caller's Vert.x context. Plain methods wait for the store, which is only
 * allowed off the event loop (an in-process decision is immediate, so it never waits).
 */
@RateLimited
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE + 100)
public class RateLimitInterceptor {

    private final MethodPolicies policies;
    private final CallerKeys keys;
    private final LimiterStore store;
    private final CurrentVertxRequest currentRequest;
    private final boolean enabled;
    private final PlanResolver plans;
    private final DryRunLog dryRunLog = new DryRunLog();

    RateLimitInterceptor(MethodPolicies policies, CallerKeys keys, LimiterStore store, CurrentVertxRequest currentRequest,
            SlidegateConfig config, PlanResolver plans) {
        this.plans = plans;
        this.policies = policies;
        this.keys = keys;
        this.store = store;
        this.currentRequest = currentRequest;
        this.enabled = config.enabled();
    }

    @AroundInvoke
    Object limit(InvocationContext ctx) throws Exception {
        if (!enabled) {
            return ctx.proceed();
        }
        MethodPolicy mp = policies.cached(ctx.getMethod());
        if (mp == null) { // first call of a method the start-up check did not see
            mp = policies.of(ctx.getMethod(), ctx.getInterceptorBinding(RateLimited.class));
        }
        RoutingContext rc = currentRequest();
        String key = keys.resolve(mp, ctx.getParameters(), rc);
        Policy policy = mp.plans().isEmpty() ? mp.policy()
                : mp.plans().getOrDefault(plan(mp, ctx, rc), mp.policy());
        return decide(ctx, mp, policy, key, rc);
    }

    private String plan(MethodPolicy mp, InvocationContext ctx, RoutingContext rc) {
        String plan = plans.plan(new KeyResolver.Call(mp.policy().name(), mp.method(), ctx.getParameters(), rc));
        return plan == null ? "" : plan;
    }

    private Object decide(InvocationContext ctx, MethodPolicy mp, Policy policy, String key, RoutingContext rc) throws Exception {
        return switch (mp.kind()) {
            case PLAIN -> {
                admit(await(store.acquire(policy, key, mp.cost()), mp), mp, rc);
                yield ctx.proceed();
            }
            case UNI -> Uni.createFrom().completionStage(() -> store.acquire(policy, key, mp.cost()))
                    .emitOn(onCallerContext())
                    .onItem().transformToUni(d -> {
                        admit(d, mp, rc);
                        return (Uni<?>) proceed(ctx);
                    });
            case STAGE -> store.acquire(policy, key, mp.cost())
                    .thenComposeAsync(d -> {
                        admit(d, mp, rc);
                        return (CompletionStage<?>) proceed(ctx);
                    }, onCallerContext())
                    .toCompletableFuture();
        };
    }

    private void admit(Decision d, MethodPolicy mp, RoutingContext rc) {
        if (rc != null) {
            HttpDecisions.record(rc, d);
        }
        if (!d.allowed()) {
            if (d.policy().dryRun()) {
                dryRunLog.wouldHaveRefused(d);
            } else {
                throw new RateLimitExceededException(d, mp.cost());
            }
        }
    }

    private static Object proceed(InvocationContext ctx) {
        try {
            return ctx.proceed();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static Decision await(CompletionStage<Decision> stage, MethodPolicy mp) throws Exception {
        CompletableFuture<Decision> f = stage.toCompletableFuture();
        if (!f.isDone() && !BlockingOperationControl.isBlockingAllowed()) {
            throw new IllegalStateException(mp.where() + " returns a plain value but runs on an I/O thread, where a remote "
                    + "rate-limit decision cannot be awaited: return Uni or CompletionStage, or annotate it @Blocking");
        }
        try {
            return f.get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    /** Runs continuations on the Vert.x context of the call (inline when already there), so the method sees its request. */
    private static Executor onCallerContext() {
        Context caller = Vertx.currentContext();
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

    private RoutingContext currentRequest() {
        return Arc.container().requestContext().isActive() ? currentRequest.getCurrent() : null;
    }
}
