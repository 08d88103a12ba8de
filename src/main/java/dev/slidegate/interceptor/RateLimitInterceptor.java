package dev.slidegate.interceptor;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import jakarta.annotation.Priority;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;

import dev.slidegate.api.RateLimited;
import dev.slidegate.config.SlidegateConfig;
import io.quarkus.arc.Arc;
import io.quarkus.arc.ArcInvocationContext;
import io.quarkus.vertx.http.runtime.CurrentVertxRequest;
import io.smallrye.mutiny.Uni;
import io.vertx.ext.web.RoutingContext;

/**
 * Applies {@link RateLimited} to a method call: asks the {@link Decider} and lets the call through,
 * or throws (fails with, for {@code Uni} and {@code CompletionStage} methods) the outcome's failure.
 * During an HTTP request the response gets the RateLimit fields of its decisions.
 * A plain method waits for the decision; the others never block, and run when the decision is made,
 * back on the caller's Vert.x context. A {@code Uni} is decided when it is subscribed to.
 */
@RateLimited
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE + 100)
public class RateLimitInterceptor {

    private final MethodPolicies policies;
    private final Decider decider;
    private final CurrentVertxRequest currentRequest;
    private final boolean enabled;

    RateLimitInterceptor(MethodPolicies policies, Decider decider, CurrentVertxRequest currentRequest, SlidegateConfig config) {
        this.policies = policies;
        this.decider = decider;
        this.currentRequest = currentRequest;
        this.enabled = config.enabled();
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
        RoutingContext rc = Arc.container().requestContext().isActive() ? currentRequest.getCurrent() : null;
        if (Decided.take(rc, ctx.getMethod())) { // the request filter decided this endpoint's request before dispatch
            return ctx.proceed();
        }
        List<MethodPolicy> decided = mps;
        Object[] args = ctx.getParameters();
        return switch (mps.get(0).kind()) {
            case PLAIN -> {
                Outcome o = decider.decideAndWait(mps, args, rc);
                HttpOutcomes.record(o, rc);
                o.orThrow();
                yield ctx.proceed();
            }
            case UNI -> Uni.createFrom().completionStage(() -> decider.decide(decided, args, rc))
                    .chain(v -> {
                        HttpOutcomes.record(v, rc);
                        return v.admitted() ? (Uni<?>) proceed(ctx) : Uni.createFrom().failure(v.failure());
                    });
            case STAGE -> decider.decide(mps, args, rc)
                    .thenCompose(v -> {
                        HttpOutcomes.record(v, rc);
                        return v.admitted() ? (CompletionStage<?>) proceed(ctx) : CompletableFuture.failedFuture(v.failure());
                    })
                    .toCompletableFuture();
        };
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
}
