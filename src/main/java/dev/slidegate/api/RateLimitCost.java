package dev.slidegate.api;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the parameter of a {@link RateLimited} method whose value is what the call costs (in the policy's unit), in place
 * of the policy's {@code cost}: {@code complete(@RateLimitCost @QueryParam("max-tokens") int maxTokens)}. With
 * {@code settle=true} it is the estimate the call is admitted against, settled with what the call reports it used.
 *
 * <p>
 * The parameter is an {@code int}, {@code long}, {@code short} or their boxes. A value below 1 costs 1 (a call is never
 * free before it ran), one beyond {@link Integer#MAX_VALUE} costs that, and {@code null} costs the policy's {@code cost}.
 * A REST endpoint with one is decided when its parameters are known, by the interceptor, not before dispatch.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.PARAMETER)
public @interface RateLimitCost {
}
