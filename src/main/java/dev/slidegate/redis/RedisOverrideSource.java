package dev.slidegate.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

import org.jboss.logging.Logger;

import dev.slidegate.api.Limit;
import dev.slidegate.api.LimitOverride;
import dev.slidegate.api.OverrideSource;
import io.quarkus.redis.datasource.ReactiveRedisDataSource;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.redis.client.Command;

/**
 * Overrides kept in Redis, shared by every instance: one hash, {@value #OVERRIDES}, with one field per
 * target (a JSON array {@code [policy, plan, key]}) holding the override as JSON, and a counter,
 * {@value #VERSION}, raised by every change.
 *
 * <p>
 * Every instance reads the counter every {@code every} (250 ms) and loads the hash again when it moved:
 * a change made through any instance applies on all within about that. Reading a counter rather than
 * subscribing needs no connection of its own, works the same on a single server and a cluster, and
 * cannot miss a message; the periodic full load heals a counter that was lost (a Redis restarted empty).
 * A failed read changes nothing: the overrides last loaded stay in force.
 */
public final class RedisOverrideSource implements OverrideSource {

    /** The hash of overrides. */
    public static final String OVERRIDES = "slidegate:overrides";
    /** The counter of changes. */
    public static final String VERSION = "slidegate:overrides:version";
    private static final Logger LOG = Logger.getLogger("dev.slidegate");
    /** Deletes an expired override only if it was not replaced meanwhile. */
    private static final String DELETE_IF_SAME = "if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then "
            + "return redis.call('HDEL', KEYS[1], ARGV[1]) end return 0";

    private final ReactiveRedisDataSource redis;
    private final Vertx vertx;
    private final Duration every;
    private final Duration timeout;

    public RedisOverrideSource(ReactiveRedisDataSource redis, Vertx vertx, Duration every, Duration timeout) {
        this.redis = redis;
        this.vertx = vertx;
        this.every = every;
        this.timeout = timeout;
    }

    @Override
    public String name() {
        return "redis";
    }

    @Override
    public CompletionStage<List<LimitOverride>> load() {
        return call(redis.execute(Command.HGETALL, OVERRIDES), "HGETALL " + OVERRIDES).map(r -> {
            List<LimitOverride> found = new ArrayList<>();
            Instant now = Instant.now();
            if (r != null) {
                for (String field : r.getKeys()) {
                    String json = r.get(field).toString();
                    try {
                        LimitOverride o = decode(json);
                        found.add(o);
                        if (!o.activeAt(now)) {
                            redis.execute(Command.EVAL, DELETE_IF_SAME, "1", OVERRIDES, field, json).subscribe().with(x -> {
                            }, e -> {
                            });
                        }
                    } catch (RuntimeException e) {
                        LOG.warnf("Slidegate ignores the override %s in Redis (%s): %s", field, OVERRIDES, e.getMessage());
                    }
                }
            }
            return (List<LimitOverride>) found;
        }).subscribeAsCompletionStage();
    }

    @Override
    public AutoCloseable watch(Runnable changed) {
        AtomicReference<String> lastSeen = new AtomicReference<>();
        long timer = vertx.setPeriodic(every.toMillis(), id -> redis.execute(Command.GET, VERSION).subscribe().with(r -> {
            String seen = r == null ? "" : r.toString();
            // the first read counts as a change: a change made between the caller's first load and this
            // read would otherwise become the baseline and wait for the periodic refresh (seen natively,
            // where an instance answers 50 ms after it starts: OverridesIT)
            if (!seen.equals(lastSeen.getAndSet(seen))) {
                changed.run();
            }
        }, e -> {
        }));
        return () -> vertx.cancelTimer(timer);
    }

    @Override
    public CompletionStage<Void> save(LimitOverride override) {
        return call(redis.execute(Command.HSET, OVERRIDES, field(override.target()), encode(override)), "HSET " + OVERRIDES)
                .chain(() -> call(redis.execute(Command.INCR, VERSION), "INCR " + VERSION))
                .replaceWithVoid().subscribeAsCompletionStage();
    }

    @Override
    public CompletionStage<Void> remove(LimitOverride.Target target) {
        return call(redis.execute(Command.HDEL, OVERRIDES, field(target)), "HDEL " + OVERRIDES)
                .chain(() -> call(redis.execute(Command.INCR, VERSION), "INCR " + VERSION))
                .replaceWithVoid().subscribeAsCompletionStage();
    }

    private <T> Uni<T> call(Uni<T> call, String what) {
        return call.ifNoItem().after(timeout).fail()
                .onFailure().transform(e -> new RedisStoreException(e instanceof TimeoutException
                        ? "Redis did not answer " + what + " within " + timeout.toMillis() + " ms"
                        : "Redis failed on " + what + ": " + e.getMessage(), e));
    }

    /** The hash field of a target: a JSON array, so no policy, plan or key can be mistaken for another. */
    static String field(LimitOverride.Target t) {
        return new JsonArray().add(t.policy()).add(t.plan()).add(t.key()).encode();
    }

    static String encode(LimitOverride o) {
        JsonObject json = new JsonObject()
                .put("policy", o.target().policy())
                .put("plan", o.target().plan())
                .put("key", o.target().key())
                .put("limits", new JsonArray(o.limits().stream().map(Limit::toString).map(Object.class::cast).toList()))
                .put("block", o.block())
                .put("exempt", o.exempt())
                .put("expiresAt", o.expiresAt() == null ? null : o.expiresAt().toString())
                .put("reason", o.reason())
                .put("setBy", o.setBy())
                .put("setAt", o.setAt().toString());
        return json.encode();
    }

    static LimitOverride decode(String text) {
        JsonObject json = new JsonObject(text);
        List<Limit> limits = new ArrayList<>();
        JsonArray array = json.getJsonArray("limits", new JsonArray());
        for (int i = 0; i < array.size(); i++) {
            limits.add(Limit.parse(array.getString(i)));
        }
        String expires = json.getString("expiresAt");
        return new LimitOverride(
                new LimitOverride.Target(json.getString("policy"), json.getString("plan"), json.getString("key")), limits,
                json.getBoolean("block", false), json.getBoolean("exempt", false),
                expires == null ? null : Instant.parse(expires), json.getString("reason"), json.getString("setBy"),
                Instant.parse(json.getString("setAt")));
    }
}
