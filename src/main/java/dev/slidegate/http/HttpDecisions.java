package dev.slidegate.http;

import java.util.ArrayList;
import java.util.List;

import dev.slidegate.api.Decision;
import io.vertx.ext.web.RoutingContext;

/**
 * Carries the decisions made for one HTTP request to its response: each is remembered on the
 * request's {@link RoutingContext}, and the RateLimit fields are written just before the response
 * headers go out, whether the response came from the endpoint or from an exception mapper.
 */
public final class HttpDecisions {

    /** Entries of the request's routing context (not settings): its decisions, and the partition of each that names one. */
    private static final String KEY = "slidegate.decisions";
    private static final String PARTITIONS = "slidegate.partitions";

    private HttpDecisions() {
    }

    /**
     * Remembers {@code decision} for the response of {@code rc}. A decision admitted because the store
     * failed open says nothing about the quota, so it sends no RateLimit fields.
     */
    public static void record(RoutingContext rc, Decision decision) {
        if (decision.fallback() && decision.policy().failMode() == dev.slidegate.api.FailMode.OPEN) {
            return;
        }
        List<Decision> decisions = rc.get(KEY);
        if (decisions == null) {
            List<Decision> created = new ArrayList<>(2);
            rc.put(KEY, created);
            rc.addHeadersEndHandler(v -> RateLimitHeaders.write(rc.response().headers(), created, rc.get(PARTITIONS)));
            decisions = created;
        }
        synchronized (decisions) {
            decisions.add(decision);
        }
    }

    /**
     * Remembers that {@code decision} counted the caller key {@code key}: the RateLimit fields of its policy name the
     * partition ({@code pk}) in this response.
     */
    public static void partition(RoutingContext rc, Decision decision, String key) {
        java.util.Map<Decision, String> keys = rc.get(PARTITIONS);
        if (keys == null) {
            keys = java.util.Collections.synchronizedMap(new java.util.IdentityHashMap<>(2));
            rc.put(PARTITIONS, keys);
        }
        keys.put(decision, RateLimitHeaders.partitionKey(key));
    }

    /** Forgets {@code made} (the very decisions recorded), for a call decided again: its new decisions are recorded instead. */
    public static void forget(RoutingContext rc, List<Decision> made) {
        List<Decision> decisions = rc.get(KEY);
        if (decisions != null) {
            synchronized (decisions) {
                decisions.removeIf(d -> made.stream().anyMatch(m -> m == d));
            }
        }
    }
}
