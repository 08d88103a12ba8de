package dev.slidegate.api;

/**
 * Chooses a caller's plan for policies with {@code plans}: a CDI bean replacing the shipped one,
 * which maps API keys to plans from {@code slidegate.plans.*}. Called only for policies that have plans.
 */
@FunctionalInterface
public interface PlanResolver {

    /** The caller's plan, or {@code null} for none (the policy's default plan, or its own limits). */
    String plan(KeyResolver.Call call);

    /**
     * Whether {@link #plan} needs nothing but the HTTP request (no arguments, no authenticated
     * identity), so that endpoints can be decided before they are dispatched. {@code false} unless
     * a resolver says otherwise.
     */
    default boolean fromRequestAlone() {
        return false;
    }
}
