package dev.slidegate.redis;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Limit;
import dev.slidegate.api.Policy;
import dev.slidegate.core.Clock;
import dev.slidegate.core.DecisionStore;
import dev.slidegate.core.InFlightSlots;
import dev.slidegate.core.LimiterStore;
import dev.slidegate.core.Rates;
import io.quarkus.redis.datasource.ReactiveRedisDataSource;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Response;

/**
 * The Redis store: one script call per decision, so every instance sharing a Redis sees the same
 * windows and all limits of a policy are decided atomically, on the Redis server's clock. It is put
 * together from parts of one job each:
 * <ul>
 * <li>{@link ScriptCalls}: {@code EVALSHA} on each event loop's own connection, {@code EVAL} once after
 * {@code NOSCRIPT};</li>
 * <li>{@link TurnBatches}: on a single Redis server, the decisions one event loop makes in one turn
 * share calls of up to {@code batchSize} ({@link DecisionScripts#BATCH}), each still decided alone and
 * atomically;</li>
 * <li>{@link Lateness}: every decision's deadline, and the rule that tells a late Redis from a down one;</li>
 * <li>{@link RedisKeyspace}: the admin's listings, counts and resets.</li>
 * </ul>
 */
public final class RedisStore implements LimiterStore, dev.slidegate.core.PermitsAhead, AutoCloseable {

    /** How long a decision waits, at most, for a Redis that keeps answering others, when none is configured. */
    public static final Duration DEFAULT_LATE_LIMIT = Duration.ofSeconds(2);

    /**
     * The most decisions one call carries unless configured: measured against 4, 8, 16 and 128 (docs/BENCHMARKS.md);
     * larger calls leave Redis idle while the client prepares the next, smaller ones pay more calls.
     */
    public static final int DEFAULT_BATCH = 32;

    /** The largest batch size accepted: a script call blocks Redis for every decision it carries. */
    public static final int MAX_BATCH = 1000;

    /**
     * How a store waits and batches.
     *
     * @param timeout the budget: with no answer from Redis at all for this long, a decision fails
     * @param lateLimit how long a decision waits at most while Redis answers others (late, not down); also the budget of
     *        admin reads and resets
     * @param batchSize the most decisions of one event-loop turn sent in one call (1: each on its own)
     * @param clock the instance's clock: deadlines are measured on its monotonic reading, and the calendar periods a
     *        call hands the script are those around its wall time (the server's time picks among them)
     */
    public record Options(Duration timeout, Duration lateLimit, int batchSize, Clock clock) {

        public Options {
            if (batchSize < 1 || batchSize > MAX_BATCH) {
                throw new IllegalArgumentException("batch size must be between 1 and " + MAX_BATCH + ", was " + batchSize);
            }
        }

        /** The budget given, the default late limit and batch size, the system's clock. */
        public static Options of(Duration timeout) {
            return new Options(timeout, DEFAULT_LATE_LIMIT, DEFAULT_BATCH, Clock.system());
        }

        public Options withLateLimit(Duration lateLimit) {
            return new Options(timeout, lateLimit, batchSize, clock);
        }

        public Options withBatchSize(int batchSize) {
            return new Options(timeout, lateLimit, batchSize, clock);
        }

        public Options withClock(Clock clock) {
            return new Options(timeout, lateLimit, batchSize, clock);
        }
    }

    /**
     * What a policy contributes to every call (its script, keys and arguments), built once, with the policy it was built for.
     */
    private record Prepared(Policy policy, DecisionScripts.Shape shape) {
    }

    private final ReactiveRedisDataSource redis;
    private final RedisNodes nodes;
    private final EventLoopConnections connections;
    private final Lateness lateness;
    private final ScriptCalls calls;
    private final TurnBatches batches;
    private final int batchSize;
    private final RedisKeyspace keyspace;
    private final Clock clock;
    /**
     * Where this Redis' clock falls on the instance's (a single Redis): each decision's reported instant bounds it from
     * above; {@link RedisClock}'s readings of {@code TIME}, on both sides.
     */
    private final dev.slidegate.core.PermitInstants instants;
    private final Map<String, Prepared> prepared = new ConcurrentHashMap<>();

    /** A store on a single Redis with the given budget and the default options. */
    public RedisStore(ReactiveRedisDataSource redis, Duration timeout) {
        this(redis, RedisNodes.single(redis), Options.of(timeout));
    }

    /** A store whose admin listings and counts {@code SCAN} the given nodes (every master of a cluster). */
    public RedisStore(ReactiveRedisDataSource redis, RedisNodes nodes, Options options) {
        this.redis = redis;
        this.nodes = nodes;
        this.connections = new EventLoopConnections(redis.getRedis().getDelegate(), !nodes.cluster());
        // deadlines in real time: a test's clock that stands still must not keep a silent Redis waited for
        this.lateness = new Lateness(options.timeout(), options.lateLimit(), options.clock()::ioNanoTime);
        this.clock = options.clock();
        this.calls = new ScriptCalls(connections, lateness, options.clock()::aheadMicros);
        this.batchSize = options.batchSize();
        // a cluster's nodes each have a clock of their own: nothing learned of one holds for the others
        this.instants = nodes.cluster() ? dev.slidegate.core.PermitInstants.unknown()
                : new dev.slidegate.core.PermitInstants(clock::nanoTime);
        this.batches = new TurnBatches(calls, lateness, batchSize, this::decoded, clock::nanoTime);
        this.keyspace = new RedisKeyspace(redis, nodes, lateness.lateLimit());
    }

    @Override
    public String name() {
        return "redis";
    }

    /** Where this Redis' clock falls on the instance's monotonic clock, as its answers said ({@code unknown} on a cluster). */
    public dev.slidegate.core.PermitInstants instants() {
        return instants;
    }

    /**
     * The decision a script's reply says, for {@code policy}, asked at {@code askedNanos}: the instant it reports bounds
     * Redis' clock from above.
     */
    Decision decoded(Policy policy, Response r, long askedNanos) {
        Decision d = DecisionScripts.decode(policy, r);
        instants.decided(askedNanos, d.atMicros() - d.waitMicros());
        return d;
    }

    /** Stops the deadline thread once the deadlines already set have run (the Redis client is Quarkus' to close). */
    @Override
    public void close() {
        lateness.close();
    }

    /** Whether the store was closed and its deadline thread has ended (for tests). */
    boolean terminated() {
        return lateness.terminated();
    }

    /** The nodes its listings and counts scan. */
    public RedisNodes nodes() {
        return nodes;
    }

    /**
     * Connects and loads every strategy's script (on a single Redis, or on every master of a cluster,
     * whose masters' connections it opens), so the first decisions pay for neither (before, a cluster's
     * first decision of each script paid a {@code NOSCRIPT} and an {@code EVAL}); the time Redis took
     * counts as a recent answer time (a cold process answers slowly at first). With {@code vertx}, each
     * event loop's own connection (the one its decisions use) is opened too, so that no request waits
     * for a connection being set up. A master that a failover promotes later loads them on first use.
     *
     * @return null when Redis answered, else why not, as a sentence
     */
    public String warmUp(Duration atMost, Vertx vertx) {
        try {
            long sent = lateness.now();
            redis.execute("PING").await().atMost(atMost);
            int loads = 0;
            for (RedisNodes.Node node : nodes.masters().await().atMost(atMost)) { // one server, or a cluster's masters
                for (LuaScript script : DecisionScripts.ALL) {
                    node.execute(io.vertx.redis.client.Command.SCRIPT, "LOAD", script.body()).await().atMost(atMost);
                    loads++;
                }
            }
            lateness.heard((lateness.now() - sent) / (1 + loads));
            if (vertx != null) {
                connections.openOnEveryEventLoop(vertx).get(atMost.toNanos(), TimeUnit.NANOSECONDS);
                lateness.heard(-1);
            }
            return null;
        } catch (java.util.concurrent.TimeoutException e) {
            return "no answer within " + atMost.toMillis() + " ms";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        } catch (ExecutionException e) {
            return describe(e.getCause());
        } catch (RuntimeException e) {
            return describe(e);
        }
    }

    /** As {@link #warmUp(Duration, Vertx)}, without opening the event loops' connections. */
    public String warmUp(Duration atMost) {
        return warmUp(atMost, null);
    }

    private static String describe(Throwable e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    @Override
    public CompletionStage<Decision> acquire(Policy policy, String key, int cost, long maxWaitMicros) {
        DecisionStore.checkMaxWait(maxWaitMicros);
        Rates.checkRates(policy);
        if (cost < 1) {
            throw new IllegalArgumentException("cost must be at least 1, was " + cost);
        }
        return decide(policy, key, cost, policy.countRejected(), maxWaitMicros);
    }

    /**
     * A call of several policies: one script ({@code group.lua}) decides them all when their keys share one server (a
     * single Redis, or one cluster slot: the same hash tag); across slots of a cluster, each is decided on its own and a
     * refusal gives back what the others were charged ({@link #acrossSlots}).
     */
    @Override
    public CompletionStage<List<Decision>> acquireAll(List<Asked> asks) {
        if (asks.size() == 1) { // (an ask is checked when it is made)
            Asked a = asks.get(0);
            return decide(a.policy(), a.key(), a.cost(), false, a.maxWaitMicros()).thenApply(List::of);
        }
        String[] prefixes = new String[asks.size()];
        boolean oneSlot = true;
        for (int i = 0; i < prefixes.length; i++) {
            prefixes[i] = DecisionScripts.keyPrefix(asks.get(i).policy(), asks.get(i).key());
            oneSlot &= !nodes.cluster() || prefixes[i].equals(prefixes[0]);
        }
        if (!oneSlot) {
            return acrossSlots(asks, 0, 0, List.of(), 0);
        }
        DecisionScripts.Shape[] shapes = new DecisionScripts.Shape[prefixes.length];
        String[][] each = new String[prefixes.length][];
        long budget = 0;
        long now = clock.nowMicros();
        for (int i = 0; i < prefixes.length; i++) {
            Asked a = asks.get(i);
            shapes[i] = prepared(a.policy()).shape();
            each[i] = shapes[i].evalsha(prefixes[i], a.cost(), false, a.maxWaitMicros(), now);
            budget = Math.max(budget, a.maxWaitMicros());
        }
        String[] cmd = DecisionScripts.several(DecisionScripts.GROUP, prefixes.length, i -> shapes[i], i -> each[i]);
        Lateness.Call<List<Decision>> call = lateness.start(DecisionScripts.GROUP, budget * 1000);
        long asked = clock.nanoTime();
        calls.call(DecisionScripts.GROUP, cmd, call, reply -> call.complete(reply, r -> {
            if (r.get(0).toInteger() == 1) {
                List<Decision> all = new java.util.ArrayList<>(asks.size());
                for (int i = 0; i < asks.size(); i++) {
                    all.add(decoded(asks.get(i).policy(), r.get(2 + i), asked));
                }
                return all;
            }
            return List.of(decoded(asks.get(r.get(1).toInteger() - 1).policy(), r.get(2), asked));
        }));
        return call.result;
    }

    /**
     * A call of several policies whose keys lie in different cluster slots, from ask {@code i} on: each decided on its own
     * in order, no earlier than {@code notBefore} (after the first round), within the call's longest max-wait; a refusal
     * gives back what the asks before it were charged, and so does an ask placed later than the others (the round starts
     * again at its instant, up to 8 times). Never more is admitted than one script would; between a charge and its
     * refund, calls of the asks before may be refused that one script would have admitted.
     */
    private CompletionStage<List<Decision>> acrossSlots(List<Asked> asks, int i, long notBefore, List<Decision> made,
            int round) {
        if (i == asks.size()) {
            long at = made.get(0).atMicros();
            boolean same = true;
            boolean waits = false;
            for (Decision d : made) {
                same &= d.atMicros() == at;
                waits |= d.waitMicros() > 0;
                at = Math.max(at, d.atMicros());
            }
            if (same || !waits) {
                return CompletableFuture.completedFuture(made);
            }
            long again = at;
            if (round == 8) {
                Decision last = made.get(made.size() - 1);
                return giveBack(asks, made).thenApply(given -> List.of(new Decision(last.policy(), false, 0,
                        last.waitMicros(), last.atMicros() - last.waitMicros(), last.states())));
            }
            return giveBack(asks, made).thenCompose(given -> acrossSlots(asks, 0, again, List.of(), round + 1));
        }
        Asked a = asks.get(i);
        long budget = a.maxWaitMicros();
        if (round > 0) {
            for (Asked x : asks) {
                budget = Math.max(budget, x.maxWaitMicros());
            }
        }
        DecisionScripts.Shape shape = prepared(a.policy()).shape();
        String[] cmd = shape.evalsha(DecisionScripts.keyPrefix(a.policy(), a.key()), a.cost(), false, budget,
                clock.nowMicros(), notBefore);
        return send(a.policy(), shape, cmd, budget).thenCompose(d -> {
            if (!d.allowed()) {
                return giveBack(asks, made).thenApply(given -> List.of(d));
            }
            List<Decision> all = new java.util.ArrayList<>(made);
            all.add(d);
            return acrossSlots(asks, i + 1, notBefore, all, round);
        });
    }

    /**
     * Gives back the permits {@code made} charged to the first of {@code asks}, each where it was charged; completes when
     * every give-back was answered (one that failed leaves its permits charged: a refusal too many, never an admission).
     */
    private CompletionStage<Void> giveBack(List<Asked> asks, List<Decision> made) {
        CompletableFuture<?>[] given = new CompletableFuture<?>[made.size()];
        for (int i = 0; i < made.size(); i++) {
            Asked a = asks.get(i);
            Decision d = made.get(i);
            if (a.policy().settles()) {
                given[i] = settle(a.policy(), a.key(), d.atMicros(), a.cost(), 0).toCompletableFuture();
            } else {
                given[i] = refund(a.policy(), a.key(), d.atMicros(), a.cost()).toCompletableFuture();
            }
        }
        return CompletableFuture.allOf(given).handle((done, error) -> null);
    }

    /** Gives back a sliding log's permits recorded at one instant ({@code refund_sliding_log.lua}). */
    @Override
    public CompletionStage<Void> refund(Policy policy, String key, long atMicros, int cost) {
        String[] cmd = { DecisionScripts.REFUND_LOG.sha1(), "1", DecisionScripts.keyPrefix(policy, key) + ":log",
                Long.toString(atMicros), Integer.toString(cost) };
        Lateness.Call<Long> call = lateness.start(DecisionScripts.REFUND_LOG);
        calls.call(DecisionScripts.REFUND_LOG, cmd, call, reply -> call.complete(reply, r -> r.toLong()));
        return call.result.thenApply(given -> null);
    }

    @Override
    public CompletionStage<Decision> enter(Policy policy, String key, long maxWaitMicros) {
        DecisionStore.checkMaxWait(maxWaitMicros); // a slot frees when a call ends: nothing is reserved for later
        InFlightSlots.checkInFlight(policy);
        return decide(policy, key, 1, false, 0);
    }

    @Override
    public CompletionStage<dev.slidegate.core.PermitsAhead.Taken> takeAhead(Policy policy, String key, int cost, int most,
            long usableMicros) {
        if (!dev.slidegate.core.PermitsAhead.takesAhead(policy) || cost < 1 || most < cost || usableMicros < 0) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("permits are taken ahead for a sliding "
                    + "log, a sliding counter or a fixed window without calendar periods only, at least 1 and no fewer than "
                    + "the call's cost, usable for 0 microseconds or more"));
        }
        DecisionScripts.Shape shape = prepared(policy).shape();
        String[] cmd = shape.takeAhead(DecisionScripts.keyPrefix(policy, key), cost, most, usableMicros);
        Lateness.Call<dev.slidegate.core.PermitsAhead.Taken> call = lateness.start(shape.script(), 0);
        calls.call(shape.script(), cmd, call, reply -> call.complete(reply, r -> DecisionScripts.taken(policy, r)));
        return call.result;
    }

    @Override
    public CompletionStage<Integer> giveBack(Policy policy, String key, long takenAtMicros, int from, int to) {
        if (policy.settles()) { // a fixed window, a sliding counter: a refund where the batch was charged
            return settle(policy, key, takenAtMicros, to - from + 1, 0).thenApply(at -> to - from + 1);
        }
        String[] cmd = DecisionScripts.giveBack(DecisionScripts.keyPrefix(policy, key), takenAtMicros, from, to);
        Lateness.Call<Integer> call = lateness.start(DecisionScripts.GIVE_BACK_LOG);
        calls.call(DecisionScripts.GIVE_BACK_LOG, cmd, call, reply -> call.complete(reply, r -> r.toInteger()));
        return call.result;
    }

    /** A read-only decision: the script with cost 0 writes nothing. */
    @Override
    public CompletionStage<Decision> peek(Policy policy, String key) {
        return decide(policy, key, 0, false, 0);
    }

    private CompletionStage<Decision> decide(Policy policy, String key, int cost, boolean countRejected, long maxWaitMicros) {
        DecisionScripts.Shape shape = prepared(policy).shape();
        String prefix = DecisionScripts.keyPrefix(policy, key);
        String[] cmd = shape.evalsha(prefix, cost, countRejected, maxWaitMicros, clock.nowMicros());
        if (shape.periods() == null) {
            return send(policy, shape, cmd, maxWaitMicros);
        }
        return aroundServerTime(policy, shape, prefix, cost, countRejected, maxWaitMicros,
                send(policy, shape, cmd, maxWaitMicros), 3);
    }

    /**
     * A decision of calendar periods whose script found the server's time outside the periods given (a call that reached
     * Redis later than a period, or an instance whose clock is a period away from the server's) is made again with the
     * periods around the server's time it said, up to {@code tries} more times: the periods are cut by the server's clock
     * alone, and such a decision never fails for the two clocks' disagreement (issue 56).
     */
    private CompletionStage<Decision> aroundServerTime(Policy policy, DecisionScripts.Shape shape, String prefix, int cost,
            boolean countRejected, long maxWaitMicros, CompletionStage<Decision> first, int tries) {
        return first.handle((d, e) -> {
            long server = e == null ? -1 : DecisionScripts.periodsMissed(e);
            if (server < 0 || tries == 0) {
                return e == null ? CompletableFuture.completedFuture(d) : CompletableFuture.<Decision> failedFuture(e);
            }
            String[] again = shape.evalsha(prefix, cost, countRejected, maxWaitMicros, server);
            return aroundServerTime(policy, shape, prefix, cost, countRejected, maxWaitMicros,
                    send(policy, shape, again, maxWaitMicros),
                    tries - 1);
        }).thenCompose(s -> s);
    }

    /** Sends a decision; one whose caller may wait ({@code maxWaitMicros}) waits that long for a silent Redis too. */
    private CompletionStage<Decision> send(Policy policy, DecisionScripts.Shape shape, String[] cmd, long maxWaitMicros) {
        Context loop = calls.pinned() ? Lateness.eventLoopContext() : null;
        if (loop != null && batchSize > 1) {
            return batches.add(loop, policy, shape, cmd, maxWaitMicros * 1000);
        }
        Lateness.Call<Decision> call = lateness.start(shape.script(), maxWaitMicros * 1000);
        long asked = clock.nanoTime();
        calls.call(shape.script(), cmd, call, reply -> call.complete(reply, r -> decoded(policy, r, asked)));
        return call.result;
    }

    /** The policy's script and arguments, built once: looked up by name (cheap), checked to be this very policy. */
    private Prepared prepared(Policy policy) {
        Prepared p = prepared.get(policy.name());
        if (p == null || !p.policy().equals(policy)) {
            p = new Prepared(policy, DecisionScripts.Shape.of(policy));
            prepared.put(policy.name(), p);
        }
        return p;
    }

    @Override
    public CompletionStage<Long> hold(Policy policy, String key, long forMicros) {
        return checkedHold(policy, key, forMicros, false);
    }

    @Override
    public CompletionStage<Long> settle(Policy policy, String key, long admittedAtMicros, int estimate, long actual) {
        String[] cmd;
        LuaScript script;
        try {
            long delta = DecisionStore.settlement(policy, estimate, actual);
            DecisionScripts.Shape shape = prepared(policy).shape();
            script = DecisionScripts.settleScript(shape);
            cmd = DecisionScripts.settle(shape, DecisionScripts.keyPrefix(policy, key), admittedAtMicros, delta);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        Lateness.Call<Long> call = lateness.start(script);
        calls.call(script, cmd, call, reply -> call.complete(reply, r -> r.get(0).toLong()));
        return call.result;
    }

    @Override
    public CompletionStage<Long> heldFor(Policy policy, String key) {
        return policy.inFlight() ? CompletableFuture.completedFuture(0L) : held(policy, key, 0);
    }

    @Override
    public CompletionStage<List<Long>> renew(Policy policy, String key, List<Long> leases) {
        return lease(policy, key, leases, true);
    }

    @Override
    public CompletionStage<List<Long>> leave(Policy policy, String key, List<Long> leases) {
        return lease(policy, key, leases, false);
    }

    @Override
    public CompletionStage<Long> oldestLeaseAge(Policy policy, String key) {
        if (!policy.inFlight()) {
            return CompletableFuture.completedFuture(-1L);
        }
        String[] cmd = DecisionScripts.oldestLease(policy, DecisionScripts.keyPrefix(policy, key));
        Lateness.Call<Long> call = lateness.start(DecisionScripts.LEASE);
        calls.call(DecisionScripts.LEASE, cmd, call, reply -> call.complete(reply, r -> r.get(0).toLong()));
        return call.result;
    }

    @Override
    public CompletionStage<Turn> queue(Policy policy, String key, List<Long> tickets, long lapseMicros) {
        if (lapseMicros < 1) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("a ticket lapses after 1 us at least"));
        }
        return slotWait(policy, key, tickets, lapseMicros).thenApply(DecisionScripts::turn);
    }

    @Override
    public CompletionStage<Void> unqueue(Policy policy, String key, List<Long> tickets) {
        return slotWait(policy, key, tickets, 0).thenApply(r -> null);
    }

    private CompletionStage<Response> slotWait(Policy policy, String key, List<Long> tickets, long lapseMicros) {
        String[] cmd;
        try {
            cmd = DecisionScripts.slotWait(policy, DecisionScripts.keyPrefix(policy, key),
                    InFlightSlots.checkTickets(policy, tickets), lapseMicros);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        Lateness.Call<Response> call = lateness.start(DecisionScripts.SLOT_WAIT);
        calls.call(DecisionScripts.SLOT_WAIT, cmd, call, reply -> call.complete(reply, r -> r));
        return call.result;
    }

    private CompletionStage<List<Long>> lease(Policy policy, String key, List<Long> leases, boolean renew) {
        String[] cmd;
        try {
            cmd = DecisionScripts.lease(policy, DecisionScripts.keyPrefix(policy, key),
                    InFlightSlots.checkLeases(policy, leases),
                    renew);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        Lateness.Call<List<Long>> call = lateness.start(DecisionScripts.LEASE);
        calls.call(DecisionScripts.LEASE, cmd, call, reply -> call.complete(reply, r -> {
            List<Long> lost = new java.util.ArrayList<>(r.size());
            r.forEach(name -> lost.add(name.toLong()));
            return lost;
        }));
        return call.result;
    }

    @Override
    public CompletionStage<Long> block(Policy policy, String key, long forMicros) {
        return checkedHold(policy, key, forMicros, true);
    }

    /** A hold ({@code unlessHeld}: a block) of a policy of windows, checked as every store checks it. */
    private CompletionStage<Long> checkedHold(Policy policy, String key, long forMicros, boolean unlessHeld) {
        DecisionStore.checkHold(forMicros);
        if (policy.inFlight()) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(
                    "policy '" + policy.name() + "' limits calls in flight: it has no windows to hold"));
        }
        return held(policy, key, forMicros, unlessHeld);
    }

    private CompletionStage<Long> held(Policy policy, String key, long forMicros) {
        return held(policy, key, forMicros, false);
    }

    private CompletionStage<Long> held(Policy policy, String key, long forMicros, boolean unlessHeld) {
        DecisionScripts.Shape shape = prepared(policy).shape();
        String[] cmd = DecisionScripts.hold(shape, DecisionScripts.keyPrefix(policy, key), forMicros, unlessHeld);
        Lateness.Call<Long> call = lateness.start(DecisionScripts.HOLD);
        calls.call(DecisionScripts.HOLD, cmd, call, reply -> call.complete(reply, r -> r.get(0).toLong()));
        return call.result;
    }

    @Override
    public CompletionStage<Void> learn(Policy policy, String key, List<Limit> limits, long forMicros) {
        List<Limit> kept = DecisionStore.checkLearned(limits, forMicros);
        return learned(policy, key, kept, forMicros).thenApply(l -> null);
    }

    @Override
    public CompletionStage<List<Limit>> learned(Policy policy, String key) {
        return learned(policy, key, null, 0);
    }

    private CompletionStage<List<Limit>> learned(Policy policy, String key, List<Limit> limits, long forMicros) {
        String[] cmd = DecisionScripts.learned(DecisionScripts.keyPrefix(policy, key), limits, forMicros);
        Lateness.Call<List<Limit>> call = lateness.start(DecisionScripts.LEARNED);
        calls.call(DecisionScripts.LEARNED, cmd, call,
                reply -> call.complete(reply, r -> DecisionScripts.learnedLimits(r.toString())));
        return call.result;
    }

    @Override
    public CompletionStage<KeyPage> keys(Policy policy, String cursor, int limit) {
        return keyspace.keys(policy, cursor, limit);
    }

    @Override
    public CompletionStage<Map<String, Long>> counts(Collection<Policy> policies) {
        return keyspace.counts(policies);
    }

    @Override
    public CompletionStage<Long> count(Policy policy) {
        return counts(List.of(policy)).thenApply(c -> c.get(policy.name()));
    }

    @Override
    public CompletionStage<Void> reset(Policy policy, String key) {
        return keyspace.reset(policy, key);
    }

    /**
     * Runs {@code onChange} within {@code every} of a reset made on any instance, or of a Redis wiped
     * behind Slidegate's back (see {@link RedisKeyspace#watchResets}).
     *
     * @return stops the watching
     */
    public AutoCloseable watchResets(Vertx vertx, Duration every, Runnable onChange) {
        return keyspace.watchResets(vertx, every, onChange);
    }
}
