package dev.slidegate.engine;

import java.lang.reflect.Method;
import java.util.Map;

import dev.slidegate.api.KeyResolver;
import dev.slidegate.api.PlanResolver;
import dev.slidegate.api.Policy;
import dev.slidegate.api.RateLimitKey;
import dev.slidegate.api.RateLimited;
import dev.slidegate.config.KeySource;

/**
 * Everything the interceptor needs about one {@link RateLimited} method, resolved once.
 *
 * @param method the method
 * @param where {@code Class#method}, for messages
 * @param name the policy's own name, also when its callers get a plan's policy ({@code login.gold} is of {@code login})
 * @param policy the merged policy (for callers without a plan)
 * @param key the policy's key source
 * @param plans the policy of each plan, empty without plans
 * @param keyParameter index of the {@link RateLimitKey} parameter, or -1
 * @param costParameter index of the {@link dev.slidegate.api.RateLimitCost} parameter, or -1
 * @param costResolver the {@link dev.slidegate.api.CostResolver} that works out each call's cost, or {@code null}
 * @param kind how the method returns its result
 * @param cost permits one call weighs
 * @param route the route template for the {@code path} key, e.g. {@code /api/products/:id}
 * @param resolvers the {@link KeyResolver} beans the key source names, by name
 * @param client the REST client an outgoing call goes through (its {@code configKey} or interface name), or
 *        {@code null} for a method of this service
 * @param outgoing whether the policy paces calls to an upstream (a REST client's, or configured {@code outgoing})
 */
public record MethodPolicy(Method method, String where, String name, Policy policy, KeySource key, Map<String, Policy> plans,
        int keyParameter,
        Kind kind, int cost, String route,
        Map<String, KeyResolver> resolvers, String client, boolean outgoing, dev.slidegate.core.Settlement settlement,
        int costParameter, dev.slidegate.api.CostResolver costResolver) {

    /** A policy whose cost no resolver works out. */
    public MethodPolicy(Method method, String where, String name, Policy policy, KeySource key, Map<String, Policy> plans,
            int keyParameter, Kind kind, int cost, String route, Map<String, KeyResolver> resolvers, String client,
            boolean outgoing, dev.slidegate.core.Settlement settlement, int costParameter) {
        this(method, where, name, policy, key, plans, keyParameter, kind, cost, route, resolvers, client, outgoing,
                settlement, costParameter, null);
    }

    /** A policy whose cost no parameter gives. */
    public MethodPolicy(Method method, String where, String name, Policy policy, KeySource key, Map<String, Policy> plans,
            int keyParameter, Kind kind, int cost, String route, Map<String, KeyResolver> resolvers, String client,
            boolean outgoing, dev.slidegate.core.Settlement settlement) {
        this(method, where, name, policy, key, plans, keyParameter, kind, cost, route, resolvers, client, outgoing,
                settlement, -1);
    }

    /** A policy whose calls are not settled after they ran. */
    public MethodPolicy(Method method, String where, String name, Policy policy, KeySource key, Map<String, Policy> plans,
            int keyParameter, Kind kind, int cost, String route, Map<String, KeyResolver> resolvers, String client,
            boolean outgoing) {
        this(method, where, name, policy, key, plans, keyParameter, kind, cost, route, resolvers, client, outgoing,
                dev.slidegate.core.Settlement.OFF);
    }

    /** A policy of a method of this service (no REST client), not settled. */
    public MethodPolicy(Method method, String where, String name, Policy policy, KeySource key, Map<String, Policy> plans,
            int keyParameter, Kind kind, int cost, String route, Map<String, KeyResolver> resolvers) {
        this(method, where, name, policy, key, plans, keyParameter, kind, cost, route, resolvers, null, false);
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
        return keyParameter < 0 && costParameter < 0 && key.fromRequestAlone()
                && (plans.isEmpty() || planResolver.fromRequestAlone())
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
            return clamped(costResolver.cost(new KeyResolver.Call(policy.name(), method, arguments, request)));
        }
        return cost;
    }

    /** A cost worked out by code: below 1 costs 1, beyond the largest int that. */
    private static int clamped(long c) {
        return c < 1 ? 1 : (int) Math.min(Integer.MAX_VALUE, c);
    }

    /** The policy for this call: the caller's plan's, from {@code plans}, or the default. */
    public Policy policyFor(PlanResolver plans, Object[] arguments, dev.slidegate.api.RequestView request) {
        if (this.plans.isEmpty()) {
            return policy;
        }
        String plan = plans.plan(new KeyResolver.Call(policy.name(), method, arguments, request));
        return plan == null ? policy : this.plans.getOrDefault(plan, policy);
    }
}
