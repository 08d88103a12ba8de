package dev.slidegate.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

import dev.slidegate.api.Policy;
import dev.slidegate.core.StoreInspection.KeyPage;
import io.quarkus.redis.datasource.ReactiveRedisDataSource;
import io.smallrye.mutiny.TimeoutException;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Vertx;
import io.vertx.mutiny.redis.client.Response;
import io.vertx.redis.client.Command;

/**
 * Slidegate's keys in Redis as the admin sees them: listings and counts by {@code SCAN} (never
 * {@code KEYS}) node by node (one node, or every master of a cluster), and resets, each announced to
 * every instance through {@link #RESETS}. Every call has the late limit as its budget: they are an
 * operator's, not on any request's path, and a Redis that answers late (a busy machine, cold
 * connections to each cluster master) is not down for them either.
 */
final class RedisKeyspace {

    /**
     * The key counting resets: every instance reads it a few times a second and drops the refusals it
     * remembers ({@link RefusalCache}) when it changes, on a single Redis and a cluster alike.
     */
    static final String RESETS = "slidegate:resets";

    private static final int SCAN_COUNT = 1000;

    private final ReactiveRedisDataSource redis;
    private final RedisNodes nodes;
    private final Duration lateLimit;

    RedisKeyspace(ReactiveRedisDataSource redis, RedisNodes nodes, Duration lateLimit) {
        this.redis = redis;
        this.nodes = nodes;
        this.lateLimit = lateLimit;
    }

    /**
     * A page of client keys, in Redis' order. The cursor is {@code <node>:<scan cursor>:<keys of that
     * step already returned>}, so a page never exceeds the limit; like SCAN itself, a key may appear
     * twice across pages while the keyspace (or the cluster's topology) changes.
     */
    CompletionStage<KeyPage> keys(Policy policy, String cursor, int limit) {
        int node = 0;
        String scan = "0";
        int skip = 0;
        if (!cursor.isEmpty()) {
            String[] parts = cursor.split(":", -1);
            try {
                if (parts.length != 3) {
                    throw new IllegalArgumentException();
                }
                node = Integer.parseInt(parts[0]);
                scan = parts[1];
                Long.parseUnsignedLong(scan);
                skip = Integer.parseInt(parts[2]);
                if (node < 0 || skip < 0) {
                    throw new IllegalArgumentException();
                }
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("'" + cursor + "' is not a cursor of this listing");
            }
        }
        int fromNode = node;
        String fromScan = scan;
        int fromSkip = skip;
        return withTimeout(nodes.masters(), "CLUSTER SLOTS")
                .chain(all -> fromNode >= all.size()
                        ? Uni.createFrom().item(new KeyPage(List.of(), null))
                        : page(all, policy, fromNode, fromScan, fromSkip, limit, new ArrayList<>()))
                .subscribeAsCompletionStage();
    }

    private Uni<KeyPage> page(List<RedisNodes.Node> all, Policy policy, int node, String scan, int skip, int limit,
            List<String> found) {
        return scanStep(all.get(node), policy, scan).chain(step -> {
            List<String> clients = step.getValue();
            int take = Math.max(0, Math.min(clients.size() - skip, limit - found.size()));
            if (skip < clients.size()) {
                found.addAll(clients.subList(skip, skip + take));
            }
            if (skip + take < clients.size()) {
                return Uni.createFrom().item(new KeyPage(List.copyOf(found), node + ":" + scan + ":" + (skip + take)));
            }
            String next = step.getKey();
            int nextNode = node;
            if ("0".equals(next)) {
                nextNode++;
                if (nextNode >= all.size()) {
                    return Uni.createFrom().item(new KeyPage(List.copyOf(found), null));
                }
            }
            if (found.size() >= limit) {
                return Uni.createFrom().item(new KeyPage(List.copyOf(found), nextNode + ":" + next + ":0"));
            }
            return page(all, policy, nextNode, next, 0, limit, found);
        });
    }

    /** One SCAN step on one node: the next cursor and the client keys it found. */
    private Uni<Map.Entry<String, List<String>>> scanStep(RedisNodes.Node node, Policy policy, String scan) {
        String first = RedisLayout.keys(policy, "*").get(0);
        String prefix = RedisLayout.keyPrefix(policy, "").replace("}", "");
        return withTimeout(node.execute(Command.SCAN, scan, "MATCH", first, "COUNT", Integer.toString(SCAN_COUNT)), "SCAN")
                .map(r -> {
                    List<String> clients = new ArrayList<>(r.get(1).size());
                    for (Response k : r.get(1)) {
                        String key = k.toString();
                        clients.add(key.substring(prefix.length(), key.indexOf('}', prefix.length())));
                    }
                    return Map.entry(r.get(0).toString(), clients);
                });
    }

    /**
     * One SCAN pass over every Slidegate key on every node, however many policies: a policy counts the
     * keys of its first limit.
     */
    CompletionStage<Map<String, Long>> counts(Collection<Policy> policies) {
        Map<String, String> suffixByPolicy = new HashMap<>();
        for (Policy p : policies) {
            String first = RedisLayout.keys(p, "*").get(0);
            suffixByPolicy.put(p.name(), first.substring(first.indexOf('}') + 1));
        }
        Map<String, Long> counts = new ConcurrentHashMap<>();
        policies.forEach(p -> counts.put(p.name(), 0L));
        return withTimeout(nodes.masters(), "CLUSTER SLOTS")
                .chain(all -> Uni.join().all(all.stream().map(n -> countAll(n, "0", suffixByPolicy, counts)).toList())
                        .andFailFast())
                .map(done -> counts)
                .subscribeAsCompletionStage();
    }

    private Uni<Void> countAll(RedisNodes.Node node, String scan, Map<String, String> suffixByPolicy,
            Map<String, Long> counts) {
        return withTimeout(node.execute(Command.SCAN, scan, "MATCH", "slidegate:{*", "COUNT", "10000"), "SCAN").chain(r -> {
            for (Response k : r.get(1)) {
                String key = k.toString();
                int open = key.indexOf('{');
                int colon = key.indexOf(':', open);
                int close = key.indexOf('}', open);
                if (open < 0 || colon < 0 || close < colon) {
                    continue;
                }
                String policy = key.substring(open + 1, colon);
                String suffix = suffixByPolicy.get(policy);
                if (suffix != null && key.length() == close + 1 + suffix.length() && key.endsWith(suffix)) {
                    counts.merge(policy, 1L, Long::sum);
                }
            }
            String next = r.get(0).toString();
            return "0".equals(next) ? Uni.createFrom().voidItem() : countAll(node, next, suffixByPolicy, counts);
        });
    }

    /** Deletes the key's windows (with its holds) and what it learned from its upstream, and announces the reset. */
    CompletionStage<Void> reset(Policy policy, String key) {
        List<String> keys = new ArrayList<>(RedisLayout.keys(policy, key));
        keys.add(RedisLayout.keyPrefix(policy, key) + DecisionScripts.LEARNED_SUFFIX);
        return withTimeout(redis.execute(Command.DEL, keys.toArray(String[]::new)), "DEL")
                .chain(() -> withTimeout(redis.execute(Command.INCR, RESETS), "INCR"))
                .replaceWithVoid()
                .subscribeAsCompletionStage();
    }

    /**
     * Reads {@link #RESETS} now and every {@code every}, and runs {@code onChange} when it differs from
     * the last value read (when it cannot be read now, the first periodic read counts as a change):
     * within {@code every} of a reset made on any instance, or of a Redis wiped behind Slidegate's back.
     * A failed read is skipped; the next one tries again.
     *
     * @return stops the reading
     */
    AutoCloseable watchResets(Vertx vertx, Duration every, Runnable onChange) {
        // the first value is read now, while the service starts and nothing is remembered yet, so that
        // the first periodic read does not count as a change and drop refusals remembered meanwhile (a
        // native executable takes requests 50 ms after it starts: RefusalCacheIT); when it cannot be read
        // now, the first periodic read counts as a change, which is safe
        String initial = null;
        try {
            redis.execute(Command.SET, RESETS, marker(), "NX").await().atMost(lateLimit);
            Response r = redis.execute(Command.GET, RESETS).await().atMost(lateLimit);
            initial = r == null ? "" : r.toString();
        } catch (RuntimeException e) {
            // not now (Redis away, or a thread that must not block): the first periodic read decides
        }
        AtomicReference<String> lastSeen = new AtomicReference<>(initial);
        long timer = vertx.setPeriodic(every.toMillis(), id -> redis.execute(Command.GET, RESETS).subscribe().with(r -> {
            String seen = r == null ? "" : r.toString();
            if (r == null) { // wiped (FLUSHALL, a new empty Redis): a marker of its own again, so the next wipe shows too
                redis.execute(Command.SET, RESETS, marker(), "NX").subscribe().with(ok -> {
                }, e -> {
                });
            }
            if (!seen.equals(lastSeen.getAndSet(seen))) {
                onChange.run();
            }
        }, e -> {
        }));
        return () -> vertx.cancelTimer(timer);
    }

    /**
     * A value for the resets key where it has none: a random count (a reset increments it), so that a Redis wiped
     * behind Slidegate's back shows as a change even before any reset was made (issue 56: remembered refusals outlived a
     * {@code FLUSHALL} then), and two instances that each set one after a wipe are seen to differ from before.
     */
    private static String marker() {
        return Long.toString(1 + java.util.concurrent.ThreadLocalRandom.current().nextLong(1L << 52));
    }

    private <T> Uni<T> withTimeout(Uni<T> call, String what) {
        return call.ifNoItem().after(lateLimit).fail()
                .onFailure().transform(e -> new RedisStoreException(e instanceof TimeoutException
                        ? "Redis did not answer " + what + " within " + lateLimit.toMillis()
                                + " ms (slidegate.redis.late-limit)"
                        : "Redis failed on " + what + ": " + e.getMessage(), e));
    }
}
