package dev.slidegate.entry;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import jakarta.annotation.Priority;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;

import dev.slidegate.api.RateLimited;
import dev.slidegate.config.SlidegateConfig;
import dev.slidegate.core.CountWhen;
import dev.slidegate.engine.Decider;
import dev.slidegate.engine.MethodPolicy;
import dev.slidegate.engine.Outcome;
import io.quarkus.arc.Arc;
import io.quarkus.arc.ArcInvocationContext;
import io.quarkus.vertx.http.runtime.CurrentVertxRequest;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.vertx.ext.web.RoutingContext;

/**
 * Applies {@link RateLimited} to a method call: asks the {@link Decider} and lets the call through,
 * or throws (fails with, for {@code Uni} and {@code CompletionStage} methods) the outcome's failure.
 * During an HTTP request the response gets the RateLimit fields of its decisions.
 * A plain method waits for the decision; the others never block, and run when the decision is made,
 * back on the caller's Vert.x context. A {@code Uni} or {@code Multi} is decided when it is subscribed to.
 */
@RateLimited
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE + 100)
public class RateLimitInterceptor {

    private final MethodPolicies policies;
    private final Exchanges exchanges;
    private final Decider decider;
    private final CurrentVertxRequest currentRequest;
    private final boolean enabled;

    RateLimitInterceptor(MethodPolicies policies, Decider decider, CurrentVertxRequest currentRequest, SlidegateConfig config,
            Exchanges exchanges) {
        this.exchanges = exchanges;
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
        if (mps.isEmpty()) { // a method a class-level binding reaches that no policy paces (a REST client bean's close())
            return ctx.proceed();
        }
        // a call to an upstream: the request this service is answering is neither its key nor the answer it is told in
        RoutingContext rc = !mps.get(0).outgoing() && Arc.container().requestContext().isActive() ? currentRequest.getCurrent()
                : null;
        boolean readsAnswers = UsageReports.fromAnswer(mps); // usage-from=answer: once a call, for all that follows
        if (rc != null && readsAnswers && Exchanges.usageOf(rc) instanceof RequestUsage request) {
            request.readAnswers(); // the answers of REST clients it calls count (one of a library's too)
        }
        Outcome.Admitted early = Decided.take(rc, ctx.getMethod()); // the request filter decided it before dispatch
        if (early != null && !decider.late(early)) {
            Object result = ctx.proceed();
            RoutingContext request = rc;
            result = UsageReports.settles(mps)
                    ? UsageReports.reporting(result, mps.get(0).kind(), () -> Exchanges.usageOf(request), readsAnswers)
                    : result;
            // a stream ends when it terminates: one that fails is cut without its response ever ending, which would
            // have kept its leases and its settlement waiting for the client to close the connection
            return mps.get(0).kind() == MethodPolicy.Kind.MULTI && early.endMatters()
                    ? ((Multi<?>) result).onTermination().invoke((failure, cancelled) -> ended(early, null, failure,
                            cancelled))
                    : result;
        }
        if (early != null) { // this thread took it up too late for its permit (held or not): decided again, here
            HttpOutcomes.forget(early, rc);
        }
        List<MethodPolicy> decided = mps;
        Object[] args = ctx.getParameters();
        Object[] outgoing = mps.get(0).outgoing() ? args : null;
        return switch (mps.get(0).kind()) {
            case PLAIN -> {
                Outcome o = early == null ? decider.decideAndWait(mps, args, exchanges.of(rc)) : decider.startingNow(early);
                HttpOutcomes.record(o, rc);
                o.orThrow();
                Outcome.Admitted a = (Outcome.Admitted) o;
                Object result = reporting(proceed(ctx, outgoing, a, readsAnswers), MethodPolicy.Kind.PLAIN, a, readsAnswers,
                        outgoing != null);
                ended(a, result, null, false);
                yield result;
            }
            case UNI -> Uni.createFrom().completionStage(asking(early, decided, args, rc))
                    .chain(v -> {
                        HttpOutcomes.record(v, rc);
                        if (!v.admitted()) {
                            return Uni.createFrom().failure(v.failure());
                        }
                        Outcome.Admitted a = (Outcome.Admitted) v;
                        Uni<?> call = (Uni<?>) reporting(proceed(ctx, outgoing, a, readsAnswers), MethodPolicy.Kind.UNI, a,
                                readsAnswers,
                                outgoing != null);
                        call = outgoing == null ? call : subscribedWith(call, calling(outgoing, a, readsAnswers));
                        return !a.endMatters() ? call
                                : call.onTermination().invoke((item, failure, cancelled) -> ended(a, item, failure, cancelled));
                    });
            case MULTI -> {
                java.util.function.Function<Outcome.Admitted, Multi<?>> run = a -> {
                    Multi<?> call = (Multi<?>) reporting(proceed(ctx, outgoing, a, readsAnswers), MethodPolicy.Kind.MULTI, a,
                            readsAnswers,
                            outgoing != null);
                    call = outgoing == null ? call : subscribedWith(call, calling(outgoing, a, readsAnswers));
                    // a stream is in flight until it ends, fails or is cancelled
                    return !a.endMatters() ? call
                            : call.onTermination().invoke((failure, cancelled) -> ended(a, null, failure, cancelled));
                };
                if (rc != null && io.quarkus.runtime.BlockingOperationControl.isBlockingAllowed()) {
                    // an endpoint's stream on a worker thread: decided before it is returned, as a plain call is, so that
                    // its answer (written when the stream is subscribed) is its decision: a refusal's 429, or a 200 with
                    // the RateLimit fields
                    Outcome o = early == null ? decider.decideAndWait(mps, args, exchanges.of(rc)) : decider.startingNow(early);
                    HttpOutcomes.record(o, rc);
                    o.orThrow();
                    yield run.apply((Outcome.Admitted) o);
                }
                yield Multi.createFrom().completionStage(asking(early, decided, args, rc))
                        .onItem().transformToMultiAndConcatenate(v -> {
                            HttpOutcomes.record(v, rc);
                            return v.admitted() ? run.apply((Outcome.Admitted) v) : Multi.createFrom().failure(v.failure());
                        });
            }
            case STAGE -> asking(early, decided, args, rc).get()
                    .thenCompose(v -> {
                        HttpOutcomes.record(v, rc);
                        if (!v.admitted()) {
                            return CompletableFuture.<Object> failedFuture(v.failure());
                        }
                        Outcome.Admitted a = (Outcome.Admitted) v;
                        CompletionStage<Object> call = stage(
                                reporting(proceed(ctx, outgoing, a, readsAnswers), MethodPolicy.Kind.STAGE, a, readsAnswers,
                                        outgoing != null));
                        // in flight until its own stage completes (cancelling a stage returned to the caller stops no work)
                        return !a.endMatters() ? call : call.whenComplete((r, error) -> ended(a, r, error, false));
                    })
                    .toCompletableFuture();
        };
    }

    /** How a call is decided: as a new call, or again ({@link Decider#again}) when its early admission came too late. */
    private Supplier<CompletionStage<Outcome>> asking(Outcome.Admitted early, List<MethodPolicy> mps, Object[] args,
            RoutingContext rc) {
        return early == null ? () -> decider.decide(mps, args, exchanges.of(rc)) : () -> decider.again(early);
    }

    /** {@link #proceed(InvocationContext, Object[])} for an admitted call: a call that throws is done, and its leases end. */
    private static Object proceed(InvocationContext ctx, Object[] outgoing, Outcome.Admitted admitted,
            boolean readsAnswers) {
        try {
            return proceed(ctx, outgoing == null ? null : calling(outgoing, admitted, readsAnswers));
        } catch (RuntimeException e) {
            ended(admitted, null, e, false);
            throw e;
        }
    }

    /**
     * The call of {@code a} is done, with {@code result}, or {@code failure}, or {@code cancelled}: its leases end and it is
     * settled, by its outcome for policies that count only some ({@link CountWhen}): a cancelled call's outcome is not
     * known.
     */
    private static void ended(Outcome.Admitted a, Object result, Throwable failure, boolean cancelled) {
        Throwable thrown = failure == null ? null : unwrapped(failure);
        a.end(thrown != null || cancelled, cancelled ? CountWhen.UNKNOWN : thrown != null ? statusOf(thrown) : statusOf(result),
                thrown);
    }

    /**
     * The status a call's result says, for policies that count only some outcomes: a {@code Response}'s own, else 200
     * (an endpoint's answer is judged by the status written instead).
     */
    private static int statusOf(Object result) {
        if (result instanceof jakarta.ws.rs.core.Response r) {
            return r.getStatus();
        }
        if (result instanceof org.jboss.resteasy.reactive.RestResponse<?> r) {
            return r.getStatus();
        }
        return 200;
    }

    /** The status an exception says: a {@code WebApplicationException}'s (a REST client's 4xx or 5xx), else 500. */
    private static int statusOf(Throwable e) {
        return e instanceof jakarta.ws.rs.WebApplicationException w && w.getResponse() != null ? w.getResponse().getStatus()
                : 500;
    }

    /** The exception a stage failed with, without its {@code CompletionException} wrapper. */
    private static Throwable unwrapped(Throwable failure) {
        Throwable e = failure;
        while ((e instanceof java.util.concurrent.CompletionException || e instanceof java.util.concurrent.ExecutionException)
                && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }

    /**
     * {@code result} reporting the usage it says it had, for a call that settles ({@link UsageReports#reporting}); read from
     * the answer for a policy with {@code usage-from=answer}, except a REST client's answer, whole or streamed, which
     * {@link AnswerUsages} reads as the client reads it.
     */
    private static Object reporting(Object result, MethodPolicy.Kind kind, Outcome.Admitted admitted, boolean readsAnswers,
            boolean client) {
        return admitted.settling() == null ? result
                : UsageReports.reporting(result, kind, admitted.settling()::usage, !client && readsAnswers);
    }

    @SuppressWarnings("unchecked")
    private static CompletionStage<Object> stage(Object result) {
        return (CompletionStage<Object>) result;
    }

    /**
     * Lets the call through; an outgoing one with its arguments at hand ({@link RestClients#CALLING}) while the REST
     * client prepares its request, so that its response is read under the key it was decided under.
     */
    private static Object proceed(InvocationContext ctx, RestClients.Calling outgoing) {
        if (outgoing != null) {
            RestClients.CALLING.set(outgoing);
        }
        try {
            return ctx.proceed();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        } finally {
            if (outgoing != null) {
                RestClients.CALLING.remove();
            }
        }
    }

    /**
     * An outgoing call with {@code args}, admitted as {@code a}: what its REST client's request carries (the usage its
     * answer is added to, when a policy of the call reads it: {@code readsAnswers}, as the call's policies said).
     */
    private static RestClients.Calling calling(Object[] args, Outcome.Admitted a, boolean readsAnswers) {
        return new RestClients.Calling(args, readsAnswers && a.settling() != null ? a.settling().usage() : null);
    }

    /** A REST client's {@code Multi}, subscribed to with the call's arguments at hand: it sends its request then. */
    private static <T> Multi<T> subscribedWith(Multi<T> call, RestClients.Calling outgoing) {
        return Multi.createFrom().publisher(subscriber -> {
            RestClients.CALLING.set(outgoing);
            try {
                call.subscribe(subscriber);
            } finally {
                RestClients.CALLING.remove();
            }
        });
    }

    /** A REST client's {@code Uni}, subscribed to with the call's arguments at hand: it prepares its request then. */
    private static <T> Uni<T> subscribedWith(Uni<T> call, RestClients.Calling outgoing) {
        return Uni.createFrom().emitter(em -> {
            RestClients.CALLING.set(outgoing);
            try {
                io.smallrye.mutiny.subscription.Cancellable c = call.subscribe().with(em::complete, em::fail);
                em.onTermination(c::cancel);
            } finally {
                RestClients.CALLING.remove();
            }
        });
    }
}
