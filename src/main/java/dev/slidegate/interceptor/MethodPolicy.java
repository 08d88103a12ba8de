package dev.slidegate.interceptor;

import dev.slidegate.config.KeySource;
import dev.slidegate.core.Policy;

/**
 * Everything the interceptor needs about one {@link RateLimited} method, resolved once.
 *
 * @param where {@code Class#method}, for messages
 * @param policy the merged policy
 * @param key the policy's key source
 * @param keyParameter index of the {@link RateLimitKey} parameter, or -1
 * @param kind how the method returns its result
 * @param cost permits one call weighs
 */
record MethodPolicy(String where, Policy policy, KeySource key, int keyParameter, Kind kind, int cost) {

    /** How a method returns: the interceptor never blocks for {@code UNI} and {@code STAGE}. */
    enum Kind {
        PLAIN, UNI, STAGE
    }
}
