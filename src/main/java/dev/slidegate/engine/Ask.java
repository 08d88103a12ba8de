package dev.slidegate.engine;

import dev.slidegate.api.Policy;
import dev.slidegate.core.Overrides;

/**
 * One policy's part in one call: what to ask the store.
 *
 * @param policy the policy decided under (an outgoing call's as its upstream taught, {@link Upstreams#paced})
 * @param override the override that decides it, or {@code null}
 * @param maxWait how long the call may wait for this policy's permit, microseconds
 * @param configured the policy as configured
 */
record Ask(MethodPolicy mp, Policy policy, String key, int cost, Overrides.Active override, long maxWait, Policy configured) {

    Ask withMaxWait(long micros) {
        return new Ask(mp, policy, key, cost, override, micros, configured);
    }
}
