package dev.slidegate.api;

import java.util.concurrent.CompletionStage;

/**
 * Rate limits for code that is not annotated: inject this bean and ask it by policy name and caller
 * key. The policy is one the service configures ({@code slidegate.policies.<name>.*}) or an annotation
 * defines; the decision is made, counted and logged exactly as for {@link RateLimited} methods.
 *
 * <pre>
 * &#64;Inject
 * RateLimiter limiter;
 *
 * Decision d = limiter.acquireAndWait("exports", tenantId);
 * if (!d.allowed()) {
 *     throw new RateLimitExceededException(d);
 * }
 * </pre>
 *
 * The key is any text that identifies the caller: Slidegate bounds it and makes it safe for every
 * store (it appears as {@code key:<value>} in the admin listing, hashed when long or unusual). A
 * policy in dry-run answers refusals as they are ({@code allowed() == false}) and leaves what to do
 * to the caller; {@code decision.policy().dryRun()} says so.
 *
 * <p>
 * Plans and overrides apply as they do to annotated methods. A call made during an HTTP request gets
 * the plan the {@link PlanResolver} finds for that request (the shipped one reads the API key header);
 * the resolver sees a {@link KeyResolver.Call} whose method is {@code null} and whose only argument is
 * the key given here. Outside a request, a resolver that needs one answers no plan.
 */
public interface RateLimiter {

    /**
     * Takes one permit of {@code policy} for {@code key}.
     *
     * @return the decision, admitted or refused, never blocking; it fails with
     *         {@link StoreUnavailableException} when the store cannot decide (fail mode {@code closed})
     * @throws IllegalArgumentException for a policy the service does not know, or a blank key
     */
    default CompletionStage<Decision> acquire(String policy, String key) {
        return acquire(policy, key, 1);
    }

    /** Takes {@code cost} permits (at least 1) of {@code policy} for {@code key}: see {@link #acquire(String, String)}. */
    CompletionStage<Decision> acquire(String policy, String key, int cost);

    /**
     * The blocking form of {@link #acquire(String, String)}: for worker threads, never an event loop
     * (an in-process decision never waits, so it is allowed there too).
     *
     * @throws StoreUnavailableException when the store cannot decide
     */
    default Decision acquireAndWait(String policy, String key) {
        return acquireAndWait(policy, key, 1);
    }

    /** The blocking form of {@link #acquire(String, String, int)}. */
    Decision acquireAndWait(String policy, String key, int cost);
}
