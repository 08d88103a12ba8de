package dev.slidegate.http;

import java.util.List;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Limit;
import dev.slidegate.api.LimitState;
import io.vertx.core.MultiMap;

/**
 * Writes the IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers): one quota item per limit,
 * as RFC 9651 lists of strings with parameters.
 *
 * <pre>
 * RateLimit-Policy: "products-2s";q=500;w=2, "products-10s";q=2000;w=10
 * RateLimit: "products-2s";r=499;t=2, "products-10s";r=1999;t=10
 * </pre>
 *
 * {@code q} is the quota N, {@code w} the window in seconds (rounded up), {@code r} the permits
 * remaining and {@code t} the seconds until another permit becomes available (0: none in use).
 * Quota names are {@code <policy>-<window>}; policy names are restricted to characters that need no
 * escaping in a structured-field string.
 */
public final class RateLimitHeaders {

    public static final String POLICY = "RateLimit-Policy";
    public static final String STATE = "RateLimit";

    private RateLimitHeaders() {
    }

    static void write(MultiMap headers, List<Decision> decisions) {
        StringBuilder policy = new StringBuilder(64);
        StringBuilder state = new StringBuilder(64);
        synchronized (decisions) {
            for (Decision d : decisions) {
                List<LimitState> states = d.states();
                for (int i = 0; i < states.size(); i++) {
                    String name = d.policy().quotaName(i);
                    Limit limit = states.get(i).limit();
                    separate(policy).append('"').append(name).append("\";q=").append(limit.permits()).append(";w=")
                            .append(limit.windowSeconds());
                    separate(state).append('"').append(name).append("\";r=").append(states.get(i).remaining()).append(";t=")
                            .append(states.get(i).resetSeconds());
                }
            }
        }
        if (policy.length() > 0) {
            headers.set(POLICY, policy.toString());
            headers.set(STATE, state.toString());
        }
    }

    private static StringBuilder separate(StringBuilder list) {
        return list.length() == 0 ? list : list.append(", ");
    }
}
