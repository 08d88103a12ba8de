package dev.slidegate.interceptor;

import dev.slidegate.config.SlidegateConfig;
import dev.slidegate.core.Decision;
import dev.slidegate.core.LimiterStore;
import dev.slidegate.core.Policy;
import dev.slidegate.core.RateLimitExceededException;
import io.quarkus.arc.Arc;
import io.quarkus.arc.ArcInvocationContext;
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
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;

/**
 * Applies {@link RateLimited}: resolves the method's policies (cached), computes the caller's key and
 * plan, asks the store, and lets the call through or refuses it. It computes nothing itself.
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
    private final Admission admission;

    RateLimitInterceptor(MethodPolicies policies, CallerKeys keys, LimiterStore store, CurrentVertxRequest currentRequest,
            SlidegateConfig config, PlanResolver plans, Admission admission) {
        this.admission = admission;
        this.policies = policies;
        this.keys = keys;
        this.store = store;
        this.currentRequest = currentRequest;
        this.enabled = config.enabled();
        this.plans = plans;
    }

    /** One policy's part in one call: what to ask the store. */
    private record Ask(MethodPolicy mp, Policy policy, String key) {
    }

    @AroundInvoke
    Object limit(InvocationContext ctx) throws Exception {
        if (!enabled) {
            return ctx.proceed();
        }
        List<MethodPolicy> mps = policies.cached(ctx.getMethod());
        if (mps == null) { // first call of a method the start-up check did not see
            mps = policies.of(ctx.getMethod(), ArcInvocationContext.findIterceptorBindings(ctx, RateLimited.class));
        }
        RoutingContext rc = currentRequest();
        if (rc != null && rc.get(EarlyDecisions.DECIDED) == mps) { // this endpoint's request was decided before dispatch
            rc.remove(EarlyDecisions.DECIDED);
            return ctx.proceed();
        }
        // keys and plans are read now, on the caller's thread, where the request is
        Ask[] asks = new Ask[mps.size()];
        for (int i = 0; i < asks.length; i++) {
            MethodPolicy mp = mps.get(i);
            String key = keys.resolve(mp, ctx.getParameters(), rc);
            asks[i] = new Ask(mp, mp.policyFor(plans, ctx.getParameters(), rc), key);
        }
        return switch (mps.get(0).kind()) {
            case PLAIN -> {
                for (Ask a : asks) {
                    admit(await(store.acquire(a.policy(), a.key(), a.mp().cost()), a.mp()), a.mp(), rc);
                }
                yield ctx.proceed();
            }
            case UNI -> {
                Uni<Void> decided = Uni.createFrom().voidItem();
                for (Ask a : asks) {
                    decided = decided.chain(() -> Uni.createFrom().completionStage(() -> store.acquire(a.policy(), a.key(), a.mp().cost()))
                            .invoke(d -> admit(d, a.mp(), rc)).replaceWithVoid());
                }
                yield decided.emitOn(onCallerContext()).chain(() -> (Uni<?>) proceed(ctx));
            }
            case STAGE -> {
                CompletionStage<Void> decided = CompletableFuture.completedFuture(null);
                for (Ask a : asks) {
                    decided = decided.thenCompose(v -> store.acquire(a.policy(), a.key(), a.mp().cost()))
                            .thenAccept(d -> admit(d, a.mp(), rc));
                }
                yield decided.thenComposeAsync(v -> (CompletionStage<?>) proceed(ctx), onCallerContext()).toCompletableFuture();
            }
        };
    }

    private void admit(Decision d, MethodPolicy mp, RoutingContext rc) {
        if (admission.refuse(d, rc)) {
            throw new RateLimitExceededException(d, mp.cost());
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
