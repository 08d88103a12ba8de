package dev.slidegate.entry;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import jakarta.ws.rs.Priorities;

import org.jboss.resteasy.reactive.server.ServerRequestFilter;
import org.jboss.resteasy.reactive.server.SimpleResourceInfo;
import org.jboss.resteasy.reactive.server.spi.ResteasyReactiveContainerRequestContext;

import dev.slidegate.api.RateLimited;
import dev.slidegate.config.SlidegateConfig;
import dev.slidegate.engine.Decider;
import dev.slidegate.engine.MethodPolicy;
import dev.slidegate.engine.Outcome;
import dev.slidegate.http.ProblemMappers;
import io.vertx.ext.web.RoutingContext;

/**
 * Decides {@link RateLimited} REST endpoints before they are dispatched: a non-blocking request
 * filter that runs on the request's event loop once the endpoint is matched, ahead of the worker
 * thread a blocking endpoint runs on. A refused request is answered here (it never costs a worker
 * thread, an exception or reading its body); an admitted one is marked {@link Decided}, so the
 * interceptor lets its call through without charging it again.
 *
 * <p>
 * Only endpoints whose keys and plans come from the request alone are decided here
 * ({@link MethodPolicy#fromRequestAlone}); the interceptor decides the others, as it does every CDI
 * bean that is not an endpoint.
 */
public class EarlyDecisions {

    private final MethodPolicies methods;
    private final Decider decider;
    private final Exchanges exchanges;
    private final ProblemMappers problems;
    private final boolean enabled;

    EarlyDecisions(SlidegateConfig config, MethodPolicies methods, Decider decider, ProblemMappers problems,
            Exchanges exchanges) {
        this.exchanges = exchanges;
        this.methods = methods;
        this.decider = decider;
        this.problems = problems;
        this.enabled = config.enabled();
    }

    /**
     * A decision made already (in process, or a refusal remembered from Redis: most requests) is applied at
     * once; only one that waits for Redis suspends the request until it is made. This is what the REST layer
     * does with a filter's {@code Uni}, without a {@code Uni} and the context it captures on every request.
     */
    @ServerRequestFilter(nonBlocking = true, priority = Priorities.USER - 1000)
    public void decide(SimpleResourceInfo info, RoutingContext rc, ResteasyReactiveContainerRequestContext request) {
        if (!enabled || info == null) {
            return;
        }
        List<MethodPolicy> policies = methods.decidedEarly(info.getResourceClass(), info.getMethodName(),
                info.parameterTypes());
        if (policies == null) {
            return;
        }
        CompletableFuture<Outcome> outcome = decider.decideAhead(policies, MethodPolicies.NO_ARGUMENTS, exchanges.of(rc))
                .toCompletableFuture();
        if (outcome.isDone()) {
            apply(outcome.join(), policies, rc, request, false);
            return;
        }
        request.suspend();
        outcome.whenComplete((v, error) -> {
            if (error != null) { // the outcome never fails; should it, the request fails as a filter's would
                request.resume(error);
            } else {
                apply(v, policies, rc, request, true);
            }
        });
    }

    /** Answers a refusal, or marks the call as decided and lets it go on (resuming it if it was suspended). */
    private void apply(Outcome v, List<MethodPolicy> policies, RoutingContext rc,
            ResteasyReactiveContainerRequestContext request,
            boolean suspended) {
        HttpOutcomes.record(v, rc);
        if (!v.admitted()) {
            HttpOutcomes.abort(problems, request, v); // resumes a suspended request with the answer
            return;
        }
        Decided.mark(rc, policies.get(0).method(), (Outcome.Admitted) v);
        HttpOutcomes.endWithResponse(v, rc);
        if (suspended) {
            request.resume();
        }
    }
}
