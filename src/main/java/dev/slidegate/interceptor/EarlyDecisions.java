package dev.slidegate.interceptor;

import java.util.List;

import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.core.Response;

import org.jboss.resteasy.reactive.server.ServerRequestFilter;
import org.jboss.resteasy.reactive.server.SimpleResourceInfo;

import dev.slidegate.api.RateLimited;
import dev.slidegate.config.SlidegateConfig;
import dev.slidegate.http.ProblemMappers;
import io.smallrye.mutiny.Uni;
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

    private static final Uni<Response> GO_ON = Uni.createFrom().nullItem();

    private final MethodPolicies methods;
    private final Decider decider;
    private final ProblemMappers problems;
    private final boolean enabled;

    EarlyDecisions(SlidegateConfig config, MethodPolicies methods, Decider decider, ProblemMappers problems) {
        this.methods = methods;
        this.decider = decider;
        this.problems = problems;
        this.enabled = config.enabled();
    }

    @ServerRequestFilter(nonBlocking = true, priority = Priorities.USER - 1000)
    public Uni<Response> decide(SimpleResourceInfo info, RoutingContext rc) {
        if (!enabled || info == null) {
            return GO_ON;
        }
        List<MethodPolicy> policies = methods.decidedEarly(info.getResourceClass(), info.getMethodName(),
                info.parameterTypes());
        if (policies == null) {
            return GO_ON;
        }
        return Uni.createFrom().completionStage(decider.decide(policies, MethodPolicies.NO_ARGUMENTS, rc)).map(v -> {
            if (!v.admitted()) {
                return problems.response(v.problem());
            }
            Decided.mark(rc, policies.get(0).method());
            return null;
        });
    }
}
