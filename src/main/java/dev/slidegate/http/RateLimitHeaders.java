package dev.slidegate.http;

import java.util.List;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Limit;
import dev.slidegate.api.LimitState;
import dev.slidegate.api.Policy;
import dev.slidegate.core.ByIdentity;
import io.vertx.core.MultiMap;

/**
 * Writes the IETF RateLimit fields as draft-ietf-httpapi-ratelimit-headers-11 defines them: one quota policy item per
 * limit, as RFC 9651 lists of strings with parameters.
 *
 * <pre>
 * RateLimit-Policy: "products-2s";q=500;w=2, "products-10s";q=2000;w=10
 * RateLimit: "products-2s";r=499;t=2, "products-10s";r=1999;t=10
 * </pre>
 *
 * {@code q} is the quota N, {@code w} the time window in seconds (rounded up), {@code r} the remaining quota units and
 * {@code t} the number of seconds until additional quota is made available (0: none in use). A policy
 * limiting calls in flight is one item named after it, in the draft's concurrency form: {@code q} the most
 * calls at once, {@code qu="concurrent-requests"} and no window; {@code r} the slots free, {@code t} when
 * none is, the seconds after which to ask again. A policy counting a unit of its own says it in each item:
 * {@code "tokens-1m";q=20000;w=60;qu="slidegate-tokens"}: a unit the draft registers ({@code requests},
 * {@code content-bytes}, {@code concurrent-requests}) as it is, any other vendor-prefixed ({@link Policy#fieldUnit()}).
 * Quota names are {@code <policy>-<window>}; policy names are restricted to characters that need no
 * escaping in a structured-field string.
 */
public final class RateLimitHeaders {

    public static final String POLICY = "RateLimit-Policy";
    public static final String STATE = "RateLimit";

    private RateLimitHeaders() {
    }

    /**
     * What a policy's fields always say, written once per policy object: its whole {@code RateLimit-Policy} item
     * list, and the start of each of its {@code RateLimit} items ({@code "products-2s";r=}).
     */
    private static final class Written {
        final String policyField;
        final String[] statePrefixes;

        Written(Policy policy) {
            StringBuilder field = new StringBuilder(64);
            statePrefixes = new String[policy.limits().size()];
            for (int i = 0; i < statePrefixes.length; i++) {
                String name = policy.quotaName(i);
                Limit limit = policy.limits().get(i);
                quota(separate(field).append('"').append(name).append("\";q=").append(limit.permits()), policy, limit);
                statePrefixes[i] = '"' + name + "\";r=";
            }
            policyField = field.toString();
        }
    }

    /** By policy object (the callers hold theirs for good; an override's is new and written once). */
    private static final ByIdentity<Policy, Written> WRITTEN = new ByIdentity<>(Written::new);

    static void write(MultiMap headers, List<Decision> decisions) {
        write(headers, decisions, null);
    }

    /**
     * The draft's partition key of a caller key: a byte sequence, the first 12 bytes of the key's SHA-256 (the same on
     * every instance, different for different keys, and not the key itself).
     */
    static String partitionKey(String key) {
        try {
            byte[] digest = java.security.MessageDigest.getInstance("SHA-256")
                    .digest(key.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return ";pk=:" + java.util.Base64.getEncoder().encodeToString(java.util.Arrays.copyOf(digest, 12)) + ':';
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
        }
    }

    /**
     * Writes the RateLimit fields of {@code decisions}; a decision in {@code partitions} (its {@code ;pk=} parameter, or
     * none) names the caller's partition in its items of both fields.
     */
    static void write(MultiMap headers, List<Decision> decisions, java.util.Map<Decision, String> partitions) {
        String[] fields = fields(decisions, partitions);
        if (fields != null) {
            headers.set(POLICY, fields[0]);
            headers.set(STATE, fields[1]);
        }
    }

    /**
     * The values of {@code RateLimit-Policy} and {@code RateLimit} (in that order) that {@code decisions} make, or
     * {@code null} when none has a limit's state (answers other than HTTP ones carry them too: Envoy's rate-limit
     * service). Nothing may change {@code decisions} meanwhile (a request's are replaced, never changed).
     */
    public static String[] fields(List<Decision> decisions) {
        return fields(decisions, null);
    }

    private static String[] fields(List<Decision> decisions, java.util.Map<Decision, String> partitions) {
        String policyField = null;
        StringBuilder policies = null; // only with more than one decision
        StringBuilder state = new StringBuilder(64);
        for (int di = 0; di < decisions.size(); di++) { // (by index: no iterator for every answer)
            Decision d = decisions.get(di);
            List<LimitState> states = d.states();
            if (states.isEmpty()) {
                continue;
            }
            // states of other limits than the policy's (not written by the stores) are spelled out
            Written w = sameLimits(d.policy(), states) ? WRITTEN.get(d.policy()) : null;
            String pk = partitions == null ? null : partitions.get(d);
            String field = pk != null ? spelledOut(d, pk) : w != null ? w.policyField : spelledOut(d, null);
            if (policyField == null) {
                policyField = field;
            } else {
                if (policies == null) {
                    policies = new StringBuilder(policyField);
                }
                policies.append(", ").append(field);
            }
            for (int i = 0; i < states.size(); i++) {
                separate(state);
                if (w != null) {
                    state.append(w.statePrefixes[i]);
                } else {
                    state.append('"').append(d.policy().quotaName(i)).append("\";r=");
                }
                state.append(states.get(i).remaining()).append(";t=").append(states.get(i).resetSeconds());
                if (pk != null) {
                    state.append(pk);
                }
            }
        }
        return policyField == null ? null
                : new String[] { policies != null ? policies.toString() : policyField, state.toString() };
    }

    /** Whether {@code states} are those of {@code policy}'s limits, in order. */
    private static boolean sameLimits(Policy policy, List<LimitState> states) {
        List<Limit> limits = policy.limits();
        if (limits.size() != states.size()) {
            return false;
        }
        for (int i = 0; i < states.size(); i++) {
            if (!limits.get(i).equals(states.get(i).limit())) {
                return false;
            }
        }
        return true;
    }

    /**
     * The {@code RateLimit-Policy} items of a decision whose states are not its policy's limits, or that names the caller's
     * partition ({@code pk}, else null).
     */
    private static String spelledOut(Decision d, String pk) {
        StringBuilder field = new StringBuilder(64);
        List<LimitState> states = d.states();
        for (int i = 0; i < states.size(); i++) {
            Limit limit = states.get(i).limit();
            quota(separate(field).append('"').append(d.policy().quotaName(i)).append("\";q=").append(limit.permits()),
                    d.policy(), limit);
            if (pk != null) {
                field.append(pk);
            }
        }
        return field.toString();
    }

    /**
     * The rest of a quota item: its window (none for a calendar period), and the draft's unit ({@code qu}) unless it
     * counts requests; for calls in flight the unit and no window.
     */
    private static void quota(StringBuilder item, Policy policy, Limit limit) {
        if (policy.inFlight()) {
            item.append(";qu=\"").append(Policy.CONCURRENT_REQUESTS).append('"');
            return;
        }
        if (!limit.calendar()) { // a calendar period has no one length: its reset (t) says when it ends
            item.append(";w=").append(limit.windowSeconds());
        }
        if (policy.countsOwnUnit()) {
            item.append(";qu=\"").append(policy.fieldUnit()).append('"');
        }
    }

    private static StringBuilder separate(StringBuilder list) {
        return list.length() == 0 ? list : list.append(", ");
    }
}
