package dev.slidegate.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

import org.jboss.logging.Logger;

import dev.slidegate.api.Limit;
import dev.slidegate.api.LimitOverride;
import dev.slidegate.api.OverrideSource;
import dev.slidegate.core.OverrideChanges;
import dev.slidegate.core.TooManyOverridesException;
import io.quarkus.redis.datasource.ReactiveRedisDataSource;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.redis.client.Command;

/**
 * Overrides kept in Redis, shared by every instance: one hash, {@value #OVERRIDES}, with one field per target (a JSON
 * array {@code [policy, plan, key]}) holding the override as JSON, and a record of changes, {@value #CHANGES}: a sorted
 * set with one member per target changed, scored by the version of its latest change (one more than the version before,
 * given by the script that makes the change, so every change is one atomic step: the two keys share a hash slot).
 *
 * <p>
 * Every instance reads the newest version every {@code every} (250 ms) and, when it moved, the targets changed since the
 * version it holds and their overrides ({@link #since}): a change costs each instance the overrides it touched, not a
 * load of them all. It loads everything when the record cannot say what changed since then: a version that went back (a
 * Redis restarted empty), or changes trimmed from the record (it keeps the latest {@link #KEPT_CHANGES}; the version
 * trimmed up to is kept in {@value #FLOOR}); and periodically it checks that the hash holds as many overrides as it
 * loaded ({@link #holds}), which heals what no record says (an instance of an earlier version writing the hash alone). A
 * failed read changes nothing: the overrides last loaded stay in force.
 */
public final class RedisOverrideSource implements OverrideSource, OverrideChanges {

    /** The hash of overrides. */
    public static final String OVERRIDES = "slidegate:overrides";
    /** The record of changes: its hash tag puts it in the slot of {@link #OVERRIDES}, whose whole name is hashed. */
    public static final String CHANGES = "{slidegate:overrides}:changes";
    /** The newest version trimmed from {@link #CHANGES}. */
    public static final String FLOOR = "{slidegate:overrides}:floor";
    /** The counter instances of earlier versions watch; still raised by every change, so that they load the hash. */
    public static final String VERSION = "slidegate:overrides:version";
    /** How many changes the record keeps: an instance further behind loads everything. */
    static final int KEPT_CHANGES = 20_000;
    private static final Logger LOG = Logger.getLogger("dev.slidegate");
    /** One change and its record, atomically: {@code override_change.lua}. */
    private static final LuaScript CHANGE = LuaScript.load("override_change.lua");

    private final ReactiveRedisDataSource redis;
    private final Vertx vertx;
    private final Duration every;
    private final Duration timeout;
    private final int most;
    private final int kept;

    public RedisOverrideSource(ReactiveRedisDataSource redis, Vertx vertx, Duration every, Duration timeout, int most) {
        this(redis, vertx, every, timeout, most, KEPT_CHANGES);
    }

    /** With a record that keeps the latest {@code kept} changes (tests keep few). */
    RedisOverrideSource(ReactiveRedisDataSource redis, Vertx vertx, Duration every, Duration timeout, int most, int kept) {
        this.redis = redis;
        this.vertx = vertx;
        this.every = every;
        this.timeout = timeout;
        this.most = most;
        this.kept = kept;
    }

    @Override
    public String name() {
        return "redis";
    }

    @Override
    public CompletionStage<List<LimitOverride>> load() {
        return all().map(Changes::set).subscribeAsCompletionStage();
    }

    /** Everything, with the version it is as new as (read first: a change meanwhile is read again later). */
    private Uni<Changes> all() {
        return newest().chain(version -> call(redis.execute(Command.HGETALL, OVERRIDES), "HGETALL " + OVERRIDES).map(r -> {
            List<LimitOverride> found = new ArrayList<>();
            if (r != null) {
                for (String field : r.getKeys()) {
                    LimitOverride o = decoded(field, r.get(field).toString());
                    if (o != null) {
                        found.add(o);
                    }
                }
            }
            return new Changes(version, found, List.of(), true);
        }));
    }

    @Override
    public CompletionStage<Changes> since(long version) {
        if (version < 0) {
            return all().subscribeAsCompletionStage();
        }
        return newest().chain(newest -> {
            if (newest == version) {
                return Uni.createFrom().item(new Changes(version, List.of(), List.of(), false));
            }
            if (newest < version) { // the record went back: Redis lost it (restarted empty, flushed)
                return all();
            }
            return call(redis.execute(Command.GET, FLOOR), "GET " + FLOOR).chain(floor -> {
                if (floor != null && floor.toLong() > version) { // changes we have not seen were trimmed
                    return all();
                }
                return call(redis.execute(Command.ZRANGEBYSCORE, CHANGES, "(" + version, "+inf", "WITHSCORES"),
                        "ZRANGEBYSCORE " + CHANGES).chain(changed -> changes(changed, version));
            });
        }).subscribeAsCompletionStage();
    }

    /** The overrides of the targets in {@code changed} (field, score pairs), as they are now. */
    private Uni<Changes> changes(io.vertx.mutiny.redis.client.Response changed, long from) {
        List<String> fields = new ArrayList<>();
        long upTo = from;
        for (Map.Entry<String, Long> pair : pairs(changed)) {
            fields.add(pair.getKey());
            upTo = Math.max(upTo, pair.getValue());
        }
        if (fields.isEmpty()) {
            return Uni.createFrom().item(new Changes(upTo, List.of(), List.of(), false));
        }
        long version = upTo;
        List<String> args = new ArrayList<>(fields.size() + 1);
        args.add(OVERRIDES);
        args.addAll(fields);
        return call(redis.execute(Command.HMGET, args.toArray(String[]::new)), "HMGET " + OVERRIDES).map(values -> {
            List<LimitOverride> set = new ArrayList<>();
            List<LimitOverride.Target> removed = new ArrayList<>();
            for (int i = 0; i < fields.size(); i++) {
                io.vertx.mutiny.redis.client.Response value = values.get(i);
                if (value == null) {
                    LimitOverride.Target t = target(fields.get(i));
                    if (t != null) {
                        removed.add(t);
                    }
                } else {
                    LimitOverride o = decoded(fields.get(i), value.toString());
                    if (o != null) {
                        set.add(o);
                    }
                }
            }
            return new Changes(version, set, removed, false);
        });
    }

    /** The version of the newest change (0 with none). */
    private Uni<Long> newest() {
        return call(redis.execute(Command.ZRANGE, CHANGES, "-1", "-1", "WITHSCORES"), "ZRANGE " + CHANGES)
                .map(r -> pairs(r).stream().mapToLong(Map.Entry::getValue).findFirst().orElse(0L));
    }

    @Override
    public CompletionStage<Boolean> holds(int loaded) {
        return call(redis.execute(Command.HLEN, OVERRIDES), "HLEN " + OVERRIDES).map(n -> n != null && n.toLong() == loaded)
                .subscribeAsCompletionStage();
    }

    @Override
    public CompletionStage<Void> expire(LimitOverride expired) {
        return change(field(expired.target()), "", encode(expired)).replaceWithVoid().subscribeAsCompletionStage();
    }

    @Override
    public AutoCloseable watch(Runnable changed) {
        AtomicReference<Long> lastSeen = new AtomicReference<>();
        long timer = vertx.setPeriodic(every.toMillis(), id -> newest().subscribe().with(seen -> {
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
        return change(field(override.target()), encode(override), null).map(version -> {
            if (version < 0) {
                throw new TooManyOverridesException(most);
            }
            return version;
        }).replaceWithVoid().subscribeAsCompletionStage();
    }

    @Override
    public CompletionStage<Void> remove(LimitOverride.Target target) {
        return change(field(target), "", null).replaceWithVoid().subscribeAsCompletionStage();
    }

    /** One change through {@link #CHANGE}; then the counter instances of earlier versions watch is raised. */
    private Uni<Long> change(String field, String value, String expected) {
        return call(redis.execute(Command.EVAL, CHANGE.body(), "3", OVERRIDES, CHANGES, FLOOR, field, value,
                Integer.toString(most), expected == null ? "" : expected, Integer.toString(kept)),
                "EVAL (override change)").map(r -> r.toLong())
                .call(version -> version > 0 ? call(redis.execute(Command.INCR, VERSION), "INCR " + VERSION)
                        .onFailure().recoverWithNull() : Uni.createFrom().nullItem());
    }

    /** The (member, score) pairs of a {@code WITHSCORES} reply, RESP2 (flat) or RESP3 (pairs). */
    private static List<Map.Entry<String, Long>> pairs(io.vertx.mutiny.redis.client.Response r) {
        List<Map.Entry<String, Long>> pairs = new ArrayList<>();
        if (r == null || r.size() == 0) {
            return pairs;
        }
        if (r.get(0).type() == io.vertx.redis.client.ResponseType.MULTI) {
            for (io.vertx.mutiny.redis.client.Response pair : r) {
                pairs.add(Map.entry(pair.get(0).toString(), pair.get(1).toLong()));
            }
        } else {
            for (int i = 0; i + 1 < r.size(); i += 2) {
                pairs.add(Map.entry(r.get(i).toString(), r.get(i + 1).toLong()));
            }
        }
        return pairs;
    }

    /** An override read from the hash, or {@code null} (said in a warning) when it is none. */
    private static LimitOverride decoded(String field, String json) {
        try {
            return decode(json);
        } catch (RuntimeException e) {
            LOG.warnf("Slidegate ignores the override %s in Redis (%s): %s", field, OVERRIDES, e.getMessage());
            return null;
        }
    }

    /** The target a hash field names, or {@code null} when it names none. */
    private static LimitOverride.Target target(String field) {
        try {
            JsonArray a = new JsonArray(field);
            return new LimitOverride.Target(a.getString(0), a.getString(1), a.getString(2));
        } catch (RuntimeException e) {
            return null;
        }
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
