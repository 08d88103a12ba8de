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
        Recorded recorded = rc.get(KEY);
        if (recorded == null) {
            recorded = new Recorded(rc);
            rc.put(KEY, recorded);
            rc.addHeadersEndHandler(recorded);
        }
        recorded.add(decision);
    }

    /**
     * The decisions of one request, written as its RateLimit fields when its headers go out. Decisions are added (and
     * taken back) from whichever thread decides; the list is replaced, never changed, so the writer reads a whole one
     * without a lock (a lock on a list made per request cost each request a monitor in a native executable).
     */
    private static final class Recorded implements io.vertx.core.Handler<Void> {
        private static final java.lang.invoke.VarHandle DECISIONS;
        static {
            try {
                DECISIONS = java.lang.invoke.MethodHandles.lookup().findVarHandle(Recorded.class, "decisions", List.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private final RoutingContext rc;
        private volatile List<Decision> decisions = List.of(); // replaced through DECISIONS

        Recorded(RoutingContext rc) {
            this.rc = rc;
        }

        void add(Decision d) {
            List<Decision> was;
            List<Decision> now;
            do {
                was = decisions;
                if (was.isEmpty()) {
                    now = List.of(d);
                } else {
                    List<Decision> grown = new ArrayList<>(was.size() + 1);
                    grown.addAll(was);
                    grown.add(d);
                    now = java.util.Collections.unmodifiableList(grown);
                }
            } while (!DECISIONS.compareAndSet(this, was, now));
        }

        void remove(List<Decision> made) {
            List<Decision> was;
            List<Decision> now;
            do {
                was = decisions;
                List<Decision> kept = new ArrayList<>(was);
                kept.removeIf(d -> made.stream().anyMatch(m -> m == d));
                now = java.util.Collections.unmodifiableList(kept);
            } while (!DECISIONS.compareAndSet(this, was, now));
        }

        @Override
        public void handle(Void v) {
            RateLimitHeaders.write(rc.response().headers(), decisions, rc.get(PARTITIONS));
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
        Recorded recorded = rc.get(KEY);
        if (recorded != null) {
            recorded.remove(made);
        }
    }
}
