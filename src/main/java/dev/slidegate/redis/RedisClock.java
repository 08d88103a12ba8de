package dev.slidegate.redis;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import org.jboss.logging.Logger;

import dev.slidegate.core.Clock;
import io.quarkus.redis.datasource.ReactiveRedisDataSource;
import io.vertx.core.Vertx;
import io.vertx.mutiny.redis.client.Response;

/**
 * The fleet's clock: the instance's own clock, set to the Redis server's {@code TIME} by an offset measured
 * at start-up and every few seconds. What every instance must judge alike and the windows do not decide
 * (when an override expires) reads this, so instances whose clocks differ by seconds still agree, as they
 * agree on every window (which Redis decides on its own clock). Durations ({@link #nanoTime()}) are the
 * instance's own.
 *
 * <p>
 * A measurement is kept only when Redis answered within {@link #MAX_ROUND_TRIP} (the offset is then
 * known to half of that); until one is, the offset is 0. The time it gives never goes backwards: when a
 * new offset is smaller, it holds still until the clock catches up.
 */
public final class RedisClock implements Clock, AutoCloseable {

    /** The slowest round trip a measurement is kept from. */
    static final Duration MAX_ROUND_TRIP = Duration.ofMillis(100);

    private static final Logger LOG = Logger.getLogger("dev.slidegate");

    private final Clock local;
    private final ReactiveRedisDataSource redis;
    private final Vertx vertx;
    private final long timer;
    /** Redis' {@code TIME} minus the local clock, in microseconds. */
    private volatile long offsetMicros;
    private final AtomicLong last = new AtomicLong();
    /** Where Redis' clock falls on the instance's monotonic clock: each reading of it tells. */
    private final dev.slidegate.core.PermitInstants instants;

    /**
     * Measures now (waiting up to {@code atMost}) and then every {@code every}.
     *
     * @param vertx for the periodic measurement; {@code null} measures only now (tests)
     */
    public RedisClock(Clock local, ReactiveRedisDataSource redis, Vertx vertx, Duration every, Duration atMost) {
        this(local, redis, vertx, every, atMost, dev.slidegate.core.PermitInstants.unknown());
    }

    /**
     * As {@link #RedisClock(Clock, ReactiveRedisDataSource, Vertx, Duration, Duration)}, telling {@code instants} every
     * reading of Redis' clock (each one, however slow: a slow one only says less).
     */
    public RedisClock(Clock local, ReactiveRedisDataSource redis, Vertx vertx, Duration every, Duration atMost,
            dev.slidegate.core.PermitInstants instants) {
        this.local = local;
        this.instants = instants;
        this.redis = redis;
        this.vertx = vertx;
        try {
            measure().await().atMost(atMost);
        } catch (RuntimeException e) {
            LOG.debugf("fleet clock: no TIME from Redis at start-up (%s); the instance's own clock until it answers",
                    e.getMessage());
        }
        this.timer = vertx == null ? -1 : vertx.setPeriodic(every.toMillis(), id -> measure().subscribe().with(o -> {
        }, e -> {
        }));
    }

    private io.smallrye.mutiny.Uni<Long> measure() {
        long sent = local.nowMicros();
        long sentNanos = local.nanoTime();
        return redis.execute("TIME").map(r -> {
            long readNanos = local.nanoTime();
            long roundTripNanos = readNanos - sentNanos;
            long server = serverMicros(r);
            instants.timed(sentNanos, readNanos, server);
            if (roundTripNanos <= MAX_ROUND_TRIP.toNanos()) {
                offsetMicros = server - (sent + roundTripNanos / 2000);
            }
            return offsetMicros;
        });
    }

    private static long serverMicros(Response time) {
        return Long.parseLong(time.get(0).toString()) * 1_000_000 + Long.parseLong(time.get(1).toString());
    }

    /** The offset last measured: Redis' clock minus this instance's, in microseconds. */
    public long offsetMicros() {
        return offsetMicros;
    }

    @Override
    public long nowMicros() {
        long t = local.nowMicros() + offsetMicros;
        long before = last.get();
        if (t > before) {
            last.accumulateAndGet(t, Math::max);
            return t;
        }
        return before;
    }

    @Override
    public long nanoTime() {
        return local.nanoTime();
    }

    @Override
    public void close() {
        if (vertx != null) {
            vertx.cancelTimer(timer);
        }
    }
}
