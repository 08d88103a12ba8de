package dev.slidegate.api;

import java.time.Duration;
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
 * Decision d = limiter.acquireBlocking("exports", tenantId);
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
     * Takes one permit of {@code policy} for {@code key}, waiting for it as the policy's {@code max-wait} allows.
     *
     * @return completes with the decision when the call may proceed (at once, or, for a policy with a
     *         {@code max-wait}, at the instant its permit was reserved for) or at once with a refusal; never blocks a
     *         thread, and completes on the caller's Vert.x context when it has one. It fails with
     *         {@link StoreUnavailableException} when the store cannot decide (fail mode {@code closed})
     * @throws IllegalArgumentException for a policy the service does not know, or a blank key
     */
    default CompletionStage<Decision> acquire(String policy, String key) {
        return acquire(policy, key, 1);
    }

    /** Takes {@code cost} permits (at least 1) of {@code policy} for {@code key}: see {@link #acquire(String, String)}. */
    CompletionStage<Decision> acquire(String policy, String key, int cost);

    /**
     * Takes {@code cost} permits, waiting up to {@code maxWait} for them whatever the policy's {@code max-wait} says:
     * a call whose permits free within it completes admitted when they do ({@link Decision#waitMicros()} says how
     * long it waited); one whose permits free later completes at once, refused, with its retry-after. A
     * {@code maxWait} of zero never waits.
     *
     * @throws IllegalArgumentException for a negative {@code maxWait} or one over a day, and as
     *         {@link #acquire(String, String)}
     */
    CompletionStage<Decision> acquire(String policy, String key, int cost, Duration maxWait);

    /**
     * The blocking form of {@link #acquire(String, String)}: returns when the call may proceed, or at once refused.
     * For worker threads; on an event loop only where nothing is awaited (an in-process decision that does not wait).
     * A call that waited for its permit and whose thread wakes later than {@code slidegate.wait.late-tolerance} after it
     * (a starved CPU) is decided again before this returns, so the caller never runs on a permit it reached too late.
     *
     * @throws StoreUnavailableException when the store cannot decide
     * @throws IllegalStateException on an event loop, when the decision or the permit is not there at once
     */
    default Decision acquireBlocking(String policy, String key) {
        return acquireBlocking(policy, key, 1);
    }

    /** The blocking form of {@link #acquire(String, String, int)}. */
    Decision acquireBlocking(String policy, String key, int cost);

    /** The blocking form of {@link #acquire(String, String, int, Duration)}. */
    Decision acquireBlocking(String policy, String key, int cost, Duration maxWait);

    /**
     * Tells an outgoing policy ({@code slidegate.policies.<name>.outgoing=true}) what its upstream answered a call made
     * with any HTTP client for {@code key}: the status and the header fields, read as a REST Client's responses are. A
     * 429 (or 503) with {@code Retry-After}, or a published quota with nothing left until its reset, holds every call of
     * the key, on every instance sharing the store; a published limit lower than the configured one paces the key at it.
     * Values the upstream sends are bounded ({@code slidegate.upstream.ceiling}); nothing it sends can fail this call.
     *
     * <pre>{@code
     * HttpResponse<String> r = http.send(request, BodyHandlers.ofString()); // JDK HttpClient
     * limiter.learn("partner", tenant, r.statusCode(), r.headers()::allValues);
     * }</pre>
     *
     * @param headers the values of a header field by name, whatever its case (JDK {@code HttpHeaders::allValues}, Vert.x
     *        {@code MultiMap::getAll}); {@code null} or empty when absent
     * @return completes once a hold it made is in the store
     * @throws IllegalArgumentException for an unknown policy, one that is not outgoing, or a blank key
     */
    CompletionStage<Void> learn(String policy, String key, int status,
            java.util.function.Function<String, java.util.List<String>> headers);

    /** As {@link #learn(String, String, int, java.util.function.Function)}, with the header fields as a map (any case). */
    default CompletionStage<Void> learn(String policy, String key, int status,
            java.util.Map<String, java.util.List<String>> headers) {
        return learn(policy, key, status, name -> {
            java.util.List<String> v = headers.get(name);
            if (v != null) {
                return v;
            }
            for (java.util.Map.Entry<String, java.util.List<String>> e : headers.entrySet()) {
                if (e.getKey() != null && e.getKey().equalsIgnoreCase(name)) {
                    return e.getValue();
                }
            }
            return null;
        });
    }

    /**
     * Settles a call this API admitted on a policy with {@code settle=true}, once it ran and its usage is known: the
     * admission is charged {@code used} instead of the {@code estimate} it was acquired at, in every window that holds
     * it (more is charged in full, less refunded at once), on every instance sharing the store. Settle each admission
     * once; one never settled keeps its estimate.
     *
     * <pre>{@code
     * Decision d = limiter.acquireBlocking("completion-tokens", tenant, 500); // admitted against 500 tokens
     * if (!d.allowed())
     *     throw new RateLimitExceededException(d);
     * long used = model.complete(prompt).tokens();
     * limiter.settle(d, tenant, 500, used);
     * }</pre>
     *
     * @param admitted the decision {@code acquire} answered; a refusal, or a call the fail mode {@code open} let through
     *        without counting it, settles nothing
     * @param key the key it was acquired for
     * @param estimate the cost it was acquired at
     * @param used what it used, 0 to {@link Usage#MAX}
     * @return completes once the store holds the settlement; it fails when the store cannot be reached (the call then
     *         keeps its estimate)
     * @throws IllegalArgumentException for a policy without {@code settle=true}, an estimate below 1, a usage out of
     *         range, or a blank key
     */
    default CompletionStage<Void> settle(Decision admitted, String key, int estimate, long used) {
        throw new UnsupportedOperationException(getClass().getName() + " does not settle calls");
    }

    /**
     * The former name of {@link #acquireBlocking(String, String)}, which waits for a permit only where the policy has
     * a {@code max-wait}.
     *
     * @deprecated use {@link #acquireBlocking(String, String)}
     */
    @Deprecated(since = "0.38", forRemoval = true)
    default Decision acquireAndWait(String policy, String key) {
        return acquireBlocking(policy, key, 1);
    }

    /**
     * The former name of {@link #acquireBlocking(String, String, int)}.
     *
     * @deprecated use {@link #acquireBlocking(String, String, int)}
     */
    @Deprecated(since = "0.38", forRemoval = true)
    default Decision acquireAndWait(String policy, String key, int cost) {
        return acquireBlocking(policy, key, cost);
    }
}
