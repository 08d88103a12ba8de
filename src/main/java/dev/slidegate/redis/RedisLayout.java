package dev.slidegate.redis;

import java.util.List;

import dev.slidegate.api.Policy;

/**
 * Where a decision lives in Redis and how it is called, for tools and tests that look at Redis or
 * replay a decision outside Java (e.g. {@code redis-benchmark} as the ceiling of a script).
 */
public final class RedisLayout {

    private RedisLayout() {
    }

    /**
     * The Redis key prefix of one (policy, key): {@code slidegate:{<policy>:<key>}}. The braces make
     * every key of one decision hash to one Redis Cluster slot.
     */
    public static String keyPrefix(Policy policy, String key) {
        return DecisionScripts.keyPrefix(policy, key);
    }

    /** Every Redis key a decision of {@code policy} touches for {@code key}, in the order of the script's KEYS. */
    public static List<String> keys(Policy policy, String key) {
        String prefix = keyPrefix(policy, key);
        return DecisionScripts.Shape.of(policy).keySuffixes().stream().map(suffix -> prefix + suffix).toList();
    }

    /**
     * The exact {@code EVALSHA} arguments of one decision (SHA, key count, keys, arguments), the calendar periods of its
     * limits given around {@code nowMicros} (the caller's clock).
     */
    public static List<String> evalshaArguments(Policy policy, String key, int cost, long nowMicros) {
        return List.of(DecisionScripts.Shape.of(policy).evalsha(keyPrefix(policy, key), cost, policy.countRejected(),
                nowMicros));
    }

    /** The script body of a policy's strategy, for {@code SCRIPT LOAD} by tools. */
    public static String scriptBody(Policy policy) {
        return DecisionScripts.Shape.of(policy).script().body();
    }
}
