package dev.slidegate.api;

import java.lang.reflect.Method;

/**
 * A custom source of callers' keys: a CDI bean with {@code @Named("tenant")}, selected by
 * {@code key = "tenant"} (alone or in a composite such as {@code ip+tenant}).
 *
 * <p>
 * The returned text is made safe by Slidegate (long or unusual values are hashed), so it may be
 * anything that identifies the caller. Return {@code null} or blank when the call has no key: the
 * request is then refused with 400 rather than counted in a shared bucket.
 */
@FunctionalInterface
public interface KeyResolver {

    /** The caller's key for this call, or {@code null} when there is none. */
    String resolve(Call call);

    /**
     * What a resolver may look at.
     *
     * @param policy the policy's name
     * @param method the rate-limited method
     * @param arguments its arguments
     * @param request the HTTP request, or {@code null} outside HTTP ({@link RequestView}: its headers, query, client
     *        and user)
     */
    record Call(String policy, Method method, Object[] arguments, RequestView request) {
    }
}
