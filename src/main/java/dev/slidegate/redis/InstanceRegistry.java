package dev.slidegate.redis;

import java.time.Duration;
import java.util.UUID;
import java.util.function.IntSupplier;

import org.jboss.logging.Logger;

import io.quarkus.redis.datasource.ReactiveRedisDataSource;
import io.vertx.mutiny.core.Vertx;

/**
 * How many instances share this Redis, learned through Redis itself: every instance renews an entry
 * of its own once a second ({@code instances.lua}: a sorted set {@value #KEY}, scored by expiry on the
 * server's clock) and reads the number of live entries. The fail mode {@code local} divides every N by
 * it. While Redis cannot be reached the last count is kept (the instances that were there are likely
 * still there); before the first answer the count is 1. A new instance is counted by the others within
 * a second; a lower count is believed only after it has lasted {@code ttl} (an instance that stops or
 * dies, or a Redis restarted empty that has not heard from the others yet): until then the others'
 * shares are smaller, which only errs on the safe side.
 */
public final class InstanceRegistry implements IntSupplier, AutoCloseable {

    /** The Redis key of the registry (no hash tag: one key, on one node of a cluster). */
    public static final String KEY = "slidegate:instances";
    private static final Logger LOG = Logger.getLogger("dev.slidegate");
    private static final LuaScript SCRIPT = LuaScript.load("instances.lua");

    private final ReactiveRedisDataSource redis;
    private final Vertx vertx;
    private final String id = UUID.randomUUID().toString();
    private final long ttlMillis;
    private final Duration timeout;
    private final long timer;
    private volatile int count = 1;
    private final java.util.function.LongSupplier nanoTime;
    /** When a renewal last counted at least {@link #count} ({@link #nanoTime}). */
    private volatile long countSeenAt;

    /**
     * Registers now (waiting up to {@code timeout}) and then every {@code every}.
     *
     * @param ttl how long an entry lives without renewal: a few {@code every}
     */
    /** @param nanoTime the instance's monotonic clock */
    public InstanceRegistry(ReactiveRedisDataSource redis, Vertx vertx, Duration every, Duration ttl, Duration timeout,
            java.util.function.LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
        this.countSeenAt = nanoTime.getAsLong();
        this.redis = redis;
        this.vertx = vertx;
        this.ttlMillis = ttl.toMillis();
        this.timeout = timeout;
        try {
            renew().await().atMost(timeout);
        } catch (RuntimeException e) {
            LOG.debugf("instance registry: no answer at start-up (%s); counting 1 instance until Redis answers",
                    e.getMessage());
        }
        this.timer = vertx.setPeriodic(every.toMillis(), t -> renew().subscribe().with(n -> {
        }, e -> {
            countSeenAt = nanoTime.getAsLong(); // the count is kept while Redis is away, as if renewed: an outage is no news of fewer instances
            LOG.debugf("instance registry: renewal failed (%s); keeping the count of %d", e.getMessage(), count);
        }));
    }

    private io.smallrye.mutiny.Uni<Integer> renew() {
        return call(ttlMillis).map(r -> counted(Math.max(1, r.toInteger()), nanoTime.getAsLong()));
    }

    /** The registry script for this instance: renew its entry for {@code ttl} ms, or leave with 0. */
    private io.smallrye.mutiny.Uni<io.vertx.mutiny.redis.client.Response> call(long ttl) {
        return redis.execute("EVAL", SCRIPT.body(), "1", KEY, id, Long.toString(ttl)).ifNoItem().after(timeout).fail();
    }

    /**
     * A renewal counted {@code n}. More instances count at once; fewer only once the count has stayed
     * lower for a whole {@code ttl}: a Redis restarted empty (or failed over) forgets every entry, and
     * until the others renew theirs (within a second) a lower count would give this instance too big
     * a share. An instance that leaves is forgotten as late as one that dies.
     */
    private int counted(int n, long now) {
        int before = count;
        if (n >= before) {
            countSeenAt = now;
        } else if (now - countSeenAt < ttlMillis * 1_000_000L) {
            return before;
        }
        if (n != before) {
            LOG.debugf("instance registry: %d instances share this Redis", n);
        }
        count = n;
        return n;
    }

    /** The number of live instances, this one included; the last known while Redis is away. */
    @Override
    public int getAsInt() {
        return count;
    }

    /** Stops renewing and removes this instance's entry (best effort, within the timeout). */
    @Override
    public void close() {
        vertx.cancelTimer(timer);
        try {
            call(0).await().indefinitely(); // bounded by the call's own timeout
        } catch (RuntimeException e) {
            LOG.debugf("instance registry: could not leave (%s); the entry expires by itself", e.getMessage());
        }
    }
}
