package dev.slidegate.interceptor;

/**
 * Chooses a caller's plan for policies with {@code plans}: a CDI bean replacing the shipped one,
 * which maps API keys to plans from {@code slidegate.plans.*}. Called only for policies that have plans.
 */
@FunctionalInterface
public interface PlanResolver {

    /** The caller's plan, or {@code null} for none (the policy's default plan, or its own limits). */
    String plan(KeyResolver.Call call);
}
