package dev.slidegate.interceptor;

import dev.slidegate.config.KeySource;
import dev.slidegate.config.SlidegateConfig;
import dev.slidegate.http.Problem;
import dev.slidegate.http.ProblemMappers;
import io.quarkus.arc.ClientProxy;
import io.smallrye.mutiny.Uni;
import io.vertx.ext.web.RoutingContext;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.core.Response;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;
import org.jboss.resteasy.reactive.server.SimpleResourceInfo;

/**
 * Decides {@link RateLimited} REST endpoints before they are dispatched: a non-blocking request
 * filter that runs on the request's event loop once the endpoint is matched, ahead of the worker
 * thread a blocking endpoint runs on. An admitted request goes on as usual (the interceptor sees
 * that it was decided and lets the call through); a refused one is answered with 429 right here, so
 * it never costs a worker thread, an exception or the endpoint's body reading; and a blocking
 * endpoint on the Redis store never parks a worker thread waiting for Redis.
 *
 * <p>Only methods whose keys come from the request alone are decided here (ip, header, query
 * parameter, path, global; plans from the shipped API-key resolver). Keys from a
 * {@link RateLimitKey} argument, a {@link KeyResolver}, the authenticated user, or plans from a
 * custom {@link PlanResolver} need the call itself, so the interceptor decides those, as it does for
 * every CDI bean that is not an endpoint.
 */
public class EarlyDecisions {

    /** On the request: the policies decided here, which the interceptor then lets through once. */
    static final String DECIDED = "slidegate.decided";

    private static final Uni<Response> GO_ON = Uni.createFrom().nullItem();

    /**
     * What this filter does for one endpoint (a method of a resource class, by name and parameter
     * types): its policies, or {@code null} to leave it to the interceptor.
     */
    private record Endpoint(Class<?>[] parameters, List<MethodPolicy> policies, int knownWhenLooked) {
    }

    private final MethodPolicies methods;
    private final RequestDecider decider;
    private final boolean enabled;
    private final boolean shippedPlans;
    /** By resource class and method name, then parameter types: the REST layer's own description, looked up without allocating. */
    private final Map<Class<?>, Map<String, List<Endpoint>>> endpoints = new ConcurrentHashMap<>();
    private final ProblemMappers problems;

    EarlyDecisions(SlidegateConfig config, MethodPolicies methods, RequestDecider decider, PlanResolver plans, ProblemMappers problems) {
        this.problems = problems;
        this.methods = methods;
        this.decider = decider;
        this.enabled = config.enabled();
        this.shippedPlans = ClientProxy.unwrap(plans) instanceof ApiKeyPlans;
    }

    @ServerRequestFilter(nonBlocking = true, priority = Priorities.USER - 1000)
    public Uni<Response> decide(SimpleResourceInfo info, RoutingContext rc) {
        if (!enabled || info == null) {
            return GO_ON;
        }
        List<MethodPolicy> policies = endpoint(info).policies();
        if (policies == null) {
            return GO_ON;
        }
        return Uni.createFrom().emitter(answer -> decider.decide(rc, policies, new RequestDecider.Outcome() {
            @Override
            public void admitted() {
                rc.put(DECIDED, policies);
                answer.complete(null);
            }

            @Override
            public void refused(Problem problem) {
                answer.complete(problems.response(problem));
            }
        }));
    }

    private Endpoint endpoint(SimpleResourceInfo info) {
        Class<?>[] parameters = info.parameterTypes();
        List<Endpoint> overloads = endpoints.computeIfAbsent(info.getResourceClass(), c -> new ConcurrentHashMap<>())
                .getOrDefault(info.getMethodName(), List.of());
        for (Endpoint e : overloads) {
            if (Arrays.equals(e.parameters(), parameters)) {
                return e.policies() != null || e.knownWhenLooked() == methods.known() ? e : remember(info, lookUp(info));
            }
        }
        return remember(info, lookUp(info));
    }

    private Endpoint remember(SimpleResourceInfo info, Endpoint found) {
        endpoints.get(info.getResourceClass()).compute(info.getMethodName(), (name, overloads) -> {
            List<Endpoint> updated = new ArrayList<>();
            if (overloads != null) {
                overloads.stream().filter(e -> !Arrays.equals(e.parameters(), found.parameters())).forEach(updated::add);
            }
            updated.add(found);
            return List.copyOf(updated);
        });
        return found;
    }

    private Endpoint lookUp(SimpleResourceInfo info) {
        int known = methods.known();
        Class<?>[] parameters = info.parameterTypes().clone();
        List<MethodPolicy> policies = methods.cached(new MethodPolicies.Signature(info.getResourceClass(), info.getMethodName(), List.of(parameters)));
        // not known yet (a class start-up could not inspect): the interceptor decides, and a later request looks again
        return new Endpoint(parameters, policies != null && policies.stream().allMatch(this::fromRequestAlone) ? policies : null, known);
    }

    /** Whether this policy's key and plan can be found from the request alone, without the call's arguments or identity. */
    boolean fromRequestAlone(MethodPolicy mp) {
        return mp.keyParameter() < 0 && (mp.plans().isEmpty() || shippedPlans) && fromRequestAlone(mp.key());
    }

    private static boolean fromRequestAlone(KeySource key) {
        if (key instanceof KeySource.Composite c) {
            return c.parts().stream().allMatch(EarlyDecisions::fromRequestAlone);
        }
        // not User: the identity may not be established yet, and finding it may block; not Named: a resolver may read the arguments
        return key instanceof KeySource.Ip || key instanceof KeySource.Header || key instanceof KeySource.Param || key instanceof KeySource.Path
                || key instanceof KeySource.Global;
    }
}
