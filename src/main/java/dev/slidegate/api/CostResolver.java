package dev.slidegate.api;

/**
 * Works out what a call costs, in its policy's unit, before it runs: a CDI bean with {@code @Named("estimate")}, selected
 * by {@code slidegate.policies.<name>.cost-resolver=estimate} in place of a fixed {@code cost}. With {@code settle=true}
 * the answer is the estimate the call is admitted against (the prompt's tokens plus the most the call asks for), settled
 * with what the call reports it used.
 *
 * <pre>
 * &#64;Named("estimate")
 * &#64;Singleton
 * class PromptEstimate implements CostResolver {
 *     public long cost(KeyResolver.Call call) {
 *         String prompt = call.request().queryParam("prompt");
 *         return prompt == null ? 1 : prompt.length() / 4 + 256;
 *     }
 *
 *     public boolean fromRequestAlone() {
 *         return true;
 *     }
 * }
 * </pre>
 *
 * An answer below 1 costs 1 (a call is never free before it ran); one beyond {@link Integer#MAX_VALUE} costs that. A
 * resolver that throws fails the call (500 with a problem body on an endpoint) and charges nothing. It runs on the thread
 * that decides the call, an event loop for an endpoint decided before dispatch: keep it quick and non-blocking.
 */
@FunctionalInterface
public interface CostResolver {

    /** What this call costs (with {@code settle=true}: its estimate). */
    long cost(KeyResolver.Call call);

    /**
     * Whether {@link #cost} needs nothing but the HTTP request (no arguments), so that endpoints can be decided before
     * they are dispatched, with an empty {@code arguments}. {@code false} unless a resolver says otherwise: the endpoint
     * is decided by the interceptor, with its arguments.
     */
    default boolean fromRequestAlone() {
        return false;
    }
}
