package dev.slidegate.engine;

import java.lang.reflect.Method;
import java.util.Map;

import dev.slidegate.api.KeyResolver;
import dev.slidegate.api.PlanResolver;
import dev.slidegate.api.Policy;
import dev.slidegate.api.RateLimitKey;
import dev.slidegate.api.RateLimited;
import dev.slidegate.config.KeySource;
import dev.slidegate.config.PolicyRegistry;

/**
 * Everything the interceptor needs about one {@link RateLimited} method, resolved once: the policy as configuration,
 * the annotation and the defaults make it ({@link PolicyRegistry.Resolved}, the one model of a policy's values), and what
 * the method adds.
 *
 * @param method the method, or {@code null} for a policy not on a method (paths, the {@code RateLimiter})
 * @param where {@code Class#method}, for messages
 * @param resolved the policy's values: its name, policy, key source, plans, cost, direction and settlement
 * @param keyParameter index of the {@link RateLimitKey} parameter, or -1
 * @param kind how the method returns its result
 * @param route the route template for the {@code path} key, e.g. {@code /api/products/:id}
 * @param resolvers the {@link KeyResolver} beans the key source names, by name
 * @param client the REST client an outgoing call goes through (its {@code configKey} or interface name), or
 *        {@code null} for a method of this service
 * @param costParameter index of the {@link dev.slidegate.api.RateLimitCost} parameter, or -1
 * @param costResolver the {@link dev.slidegate.api.CostResolver} that works out each call's cost, or {@code null}
 */
public record MethodPolicy(Method method, String where, PolicyRegistry.Resolved resolved, int keyParameter, Kind kind,
        String route, Map<String, KeyResolver> resolvers, String client, int costParameter,
        dev.slidegate.api.CostResolver costResolver) {

    /** A policy with no key or cost argument, route, resolver or REST client of its own (the {@code RateLimiter}). */
    public MethodPolicy(String where, PolicyRegistry.Resolved resolved, Kind kind) {
        this(null, where, resolved, -1, kind, null, Map.of(), null, -1, null);
    }

    /**
     * Whether a call of this policy is the answer to an HTTP request: a resource method, or a request a path policy is
     * attached to (their routes are templates that begin with {@code /}); not a bean method, a REST client or the
     * {@code RateLimiter} (whose outcome is how the call returned).
     */
    public boolean answersHttp() {
        return client == null && route != null && route.startsWith("/");
    }

    /** The policy's own name, also when its callers get a plan's policy ({@code login.gold} is of {@code login}). */
    public String name() {
        return resolved.name();
    }

    /** The merged policy (for callers without a plan). */
    public Policy policy() {
        return resolved.policy();
    }

    /** The policy's key source. */
    public KeySource key() {
        return resolved.key();
    }

    /** The policy of each plan, empty without plans. */
    public Map<String, Policy> plans() {
        return resolved.plans();
    }

    /** Permits one call weighs. */
    public int cost() {
        return resolved.cost();
    }

    /** Whether the policy paces calls to an upstream (a REST client's, or configured {@code outgoing}). */
    public boolean outgoing() {
        return resolved.outgoing();
    }

    /** Whether and how its calls are settled after they ran. */
    public dev.slidegate.core.Settlement settlement() {
        return resolved.settlement();
    }

    /** How a method returns: the interceptor never blocks for {@code UNI}, {@code STAGE} and {@code MULTI}. */
    public enum Kind {
        PLAIN,
        UNI,
        STAGE,
        MULTI
    }

    /**
     * Whether this policy's key and plan can be found from the HTTP request alone, before the
     * endpoint is dispatched: no {@link RateLimitKey} argument, a key source that needs nothing else,
     * and no plans or a plan resolver that needs nothing else.
     */
    public boolean fromRequestAlone(PlanResolver planResolver) {
        return keyParameter < 0 && costParameter < 0 && key().fromRequestAlone()
                && (plans().isEmpty() || planResolver.fromRequestAlone())
                && (costResolver == null || costResolver.fromRequestAlone());
    }

    /**
     * What this call costs: its {@link dev.slidegate.api.RateLimitCost} argument (below 1 costs 1, {@code null} the
     * policy's cost), else what the policy's {@link dev.slidegate.api.CostResolver} works out, else the policy's cost.
     *
     * @param request the HTTP request, or {@code null} outside HTTP (for the resolver)
     */
    public int costOf(Object[] arguments, dev.slidegate.api.RequestView request) {
        if (costParameter >= 0 && arguments != null && arguments.length > costParameter
                && arguments[costParameter] instanceof Number n) {
            return clamped(n.longValue());
        }
        if (costResolver != null) {
            return clamped(costResolver.cost(new KeyResolver.Call(policy().name(), method, arguments, request)));
        }
        return cost();
    }

    /**
     * The same binding counting the policy of a part of its usage instead ({@code <name>#input}, {@code <name>#output}),
     * its calls estimated by {@code costResolver}.
     */
    public MethodPolicy countingPart(PolicyRegistry.Resolved part, dev.slidegate.api.CostResolver costResolver) {
        return new MethodPolicy(method, where, part, keyParameter, kind, route, resolvers, client, costParameter,
                costResolver);
    }

    /** A cost worked out by code: below 1 costs 1, beyond the largest int that. */
    private static int clamped(long c) {
        return c < 1 ? 1 : (int) Math.min(Integer.MAX_VALUE, c);
    }

    /** The policy for this call: the caller's plan's, from {@code plans}, or the default. */
    public Policy policyFor(PlanResolver plans, Object[] arguments, dev.slidegate.api.RequestView request) {
        Map<String, Policy> own = plans();
        Policy policy = policy();
        if (own.isEmpty()) {
            return policy;
        }
        String plan = plans.plan(new KeyResolver.Call(policy.name(), method, arguments, request));
        return plan == null ? policy : own.getOrDefault(plan, policy);
    }
}
