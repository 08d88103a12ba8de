package dev.slidegate.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Policy;
import dev.slidegate.core.LimiterStore;
import io.quarkus.redis.datasource.ReactiveRedisDataSource;
import io.smallrye.mutiny.TimeoutException;
import io.smallrye.mutiny.Uni;
import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.mutiny.redis.client.Response;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.impl.types.ErrorType;

/**
 * The Redis store: one script call per decision, so every instance sharing a Redis sees the same
 * windows and all limits of a policy are decided atomically, on the Redis server's clock. On a single
 * Redis server the decisions one event loop makes in one turn share calls of up to {@code batchSize}
 * (see {@link DecisionScripts#BATCH}); each is still decided alone and atomically.
 *
 * <p>
 * Scripts are called by SHA; on an explicit {@code NOSCRIPT} reply (after a restart, failover or
 * {@code SCRIPT FLUSH}) the call is repeated once as {@code EVAL}, which runs the script on the node
 * that owns the key and caches it there. Nothing else is retried: a call that timed out may have run
 * and charged the caller already.
 *
 * <p>
 * <b>Late is not down.</b> A decision that has no answer after {@code timeout} fails (and its fail
 * mode decides) only when Redis has answered <em>nothing</em> for longer than its patience, or the
 * connection failed. The patience is the budget, or twice the longest answer time of the last seconds
 * when that is longer (a busy machine makes every answer late, and a silence as long as the answers
 * already take is no news), never more than {@code lateLimit}. While other answers keep arriving, Redis
 * is up and this one is only late (the machine or this process is busy, the event loop has not read it
 * yet): it waits on, up to {@code lateLimit}. So does a decision whose deadline itself ran late by half
 * a budget or more (this process was not running: a GC pause, a starved CPU). A killed Redis or a
 * refused connection fails at once; a frozen one once the patience has passed since its last answer.
 */
public final class RedisStore implements LimiterStore, AutoCloseable {

    private final ReactiveRedisDataSource redis;
    private final Duration timeout;
    private final RedisNodes nodes;
    private final Map<String, Prepared> prepared = new ConcurrentHashMap<>();
    /**
     * The Vert.x client itself, a connection per event loop: a decision is one send and one callback, with no reactive
     * operators around it.
     */
    private final EventLoopConnections connections;
    /**
     * Deadlines of decisions in flight. One timer thread, with no wake-up per call: every deadline is
     * the same distance ahead, so a new one never becomes the earliest, and an answered call's
     * deadline is removed from the queue at once. The thread ends when idle, so a store that is
     * dropped leaves nothing running.
     */
    private final ScheduledThreadPoolExecutor deadlines;
    private final long timeoutNanos;
    private final long lateLimitNanos;
    /** The late limit, also the budget of admin reads and resets. */
    private final Duration lateLimit;
    /** When the last answer of any decision arrived (System.nanoTime): the proof that Redis is up. */
    private volatile long lastAnswer = System.nanoTime();
    /** The longest answer times of the last few seconds: how long a silence is still only lateness. */
    private final RecentLatency recent = new RecentLatency(TimeUnit.SECONDS.toNanos(5), System.nanoTime());

    /**
     * What a policy contributes to every call (its script, keys and arguments), built once, with the policy it was built for.
     */
    private record Prepared(Policy policy, DecisionScripts.Shape shape) {
    }

    /** How long a decision waits, at most, for a Redis that keeps answering others, when none is configured. */
    public static final Duration DEFAULT_LATE_LIMIT = Duration.ofSeconds(2);

    public RedisStore(ReactiveRedisDataSource redis, Duration timeout) {
        this(redis, timeout, RedisNodes.single(redis));
    }

    /** A store whose admin listing and counts {@code SCAN} the given nodes (every master of a cluster). */
    public RedisStore(ReactiveRedisDataSource redis, Duration timeout, RedisNodes nodes) {
        this(redis, timeout, DEFAULT_LATE_LIMIT, nodes);
    }

    /**
     * @param timeout the budget: with no answer from Redis at all for this long, a decision fails
     * @param lateLimit how long a decision waits at most while Redis answers others (late, not down)
     */
    public RedisStore(ReactiveRedisDataSource redis, Duration timeout, Duration lateLimit, RedisNodes nodes) {
        this(redis, timeout, lateLimit, nodes, DEFAULT_BATCH);
    }

    /**
     * @param batchSize the most decisions of one event-loop turn sent in one call (1: each on its own)
     */
    public RedisStore(ReactiveRedisDataSource redis, Duration timeout, Duration lateLimit, RedisNodes nodes, int batchSize) {
        if (batchSize < 1 || batchSize > MAX_BATCH) {
            throw new IllegalArgumentException("batch size must be between 1 and " + MAX_BATCH + ", was " + batchSize);
        }
        this.batchSize = batchSize;
        this.redis = redis;
        this.connections = new EventLoopConnections(redis.getRedis().getDelegate(), !nodes.cluster());
        this.timeout = timeout;
        this.timeoutNanos = timeout.toNanos();
        this.lateLimitNanos = Math.max(timeoutNanos, lateLimit.toNanos());
        this.lateLimit = Duration.ofNanos(lateLimitNanos);
        this.nodes = nodes;
        this.deadlines = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "slidegate-redis-deadlines");
            t.setDaemon(true);
            return t;
        });
        deadlines.setRemoveOnCancelPolicy(true);
        deadlines.setKeepAliveTime(10, TimeUnit.SECONDS); // the thread ends when no decision is in flight for 10 s
        deadlines.allowCoreThreadTimeOut(true);
    }

    @Override
    public String name() {
        return "redis";
    }

    /** Stops the deadline thread once the deadlines already set have run (the Redis client is Quarkus' to close). */
    @Override
    public void close() {
        deadlines.shutdown();
    }

    /** Whether the store was closed and its deadline thread has ended (for tests). */
    boolean terminated() {
        return deadlines.isTerminated();
    }

    /**
     * Connects and loads every strategy's script (on a single Redis; a cluster's nodes load theirs on
     * first use through {@code EVAL}), so the first decisions pay for neither; the time Redis took
     * counts as a recent answer time (a cold process answers slowly at first).
     *
     * @return null when Redis answered, else why not, as a sentence
     */
    public String warmUp(Duration atMost) {
        return warmUp(atMost, null);
    }

    /**
     * The server's {@code maxmemory-policy}, or {@code null} when it cannot be read (a managed Redis may
     * forbid {@code CONFIG}).
     */
    public String evictionPolicy(Duration atMost) {
        try {
            io.vertx.mutiny.redis.client.Response r = redis.execute("CONFIG", "GET", "maxmemory-policy").await().atMost(atMost);
            if (r == null) {
                return null;
            }
            io.vertx.mutiny.redis.client.Response value = r.getDelegate().isMap() ? r.get("maxmemory-policy")
                    : r.size() == 2 ? r.get(1) : null;
            return value == null ? null : value.toString();
        } catch (RuntimeException e) {
            return null;
        }
    }

    /**
     * Whether Redis, at {@code maxmemory}, may drop a window that still counts: every policy but
     * {@code noeviction} (writes then fail, and the fail mode decides) and {@code volatile-ttl} (drops
     * the keys nearest their expiry first: windows about to end, which lose the least). Every window has
     * an expiry, so the {@code volatile-*} policies reach them as the {@code allkeys-*} ones do.
     */
    public static boolean evictsWindows(String policy) {
        return policy != null && !policy.equals("noeviction") && !policy.equals("volatile-ttl");
    }

    /**
     * As {@link #warmUp(Duration)}, and opens each event loop's own connection of {@code vertx} too
     * (the one its decisions use), so that no request waits for a connection being set up.
     */
    public String warmUp(Duration atMost, Vertx vertx) {
        try {
            List<LuaScript> scripts = nodes.cluster() ? List.of() : DecisionScripts.ALL;
            long sent = System.nanoTime();
            redis.execute("PING").await().atMost(atMost);
            for (LuaScript script : scripts) {
                redis.execute("SCRIPT", "LOAD", script.body()).await().atMost(atMost);
            }
            long now = System.nanoTime();
            lastAnswer = now;
            recent.record(now, (now - sent) / (1 + scripts.size()));
            if (vertx != null) {
                connections.openOnEveryEventLoop(vertx).get(atMost.toNanos(), TimeUnit.NANOSECONDS);
                lastAnswer = System.nanoTime();
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

    private static String describe(Throwable e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    /**
     * The Redis key prefix of one (policy, key): {@code slidegate:{<policy>:<key>}}. The braces make
     * every key of one decision hash to one Redis Cluster slot.
     */
    public static String keyPrefix(Policy policy, String key) {
        return DecisionScripts.keyPrefix(policy, key);
    }

    /** Every Redis key a decision of {@code policy} touches for {@code key}, in the order of the script's KEYS. */
    public static List<String> keys(Policy policy, String key) {
        String prefix = keyPrefix(policy, key);
        return DecisionScripts.Shape.of(policy).keySuffixes().stream().map(suffix -> prefix + suffix).toList();
    }

    @Override
    public CompletionStage<Decision> acquire(Policy policy, String key, int cost) {
        if (cost < 1) {
            throw new IllegalArgumentException("cost must be at least 1, was " + cost);
        }
        return decide(policy, key, cost, policy.countRejected());
    }

    /** The nodes its listings and counts scan. */
    public RedisNodes nodes() {
        return nodes;
    }

    /** A read-only decision: the script with cost 0 writes nothing. */
    @Override
    public CompletionStage<Decision> peek(Policy policy, String key) {
        return decide(policy, key, 0, false);
    }

    private CompletionStage<Decision> decide(Policy policy, String key, int cost, boolean countRejected) {
        Prepared p = prepared(policy);
        String[] cmd = p.shape().evalsha(keyPrefix(policy, key), cost, countRejected);
        Context loop = connections.pinned() ? eventLoopContext() : null;
        if (loop != null && batchSize > 1) {
            return batches.get().add(loop, policy, p.shape(), cmd);
        }
        Pending pending = new Pending(p.shape().script());
        pending.arm();
        call(p.shape().script(), cmd, pending, reply -> answer(pending, policy, reply));
        return pending.result;
    }

    /**
     * Sends {@code EVALSHA cmd}; on {@code NOSCRIPT} once more as {@code EVAL} of the script's body. Each
     * send is recorded in {@code pending} (the connection a deadline gives up).
     */
    private void call(LuaScript script, String[] cmd, Pending pending,
            io.vertx.core.Handler<AsyncResult<io.vertx.redis.client.Response>> onReply) {
        EventLoopConnections.Sent sent;
        try {
            sent = connections.send(request(Command.EVALSHA, cmd));
        } catch (RuntimeException e) { // a client that throws instead of failing the future: the same failure, never a lost decision
            onReply.handle(io.vertx.core.Future.failedFuture(e));
            return;
        }
        pending.sent = sent;
        sent.answer().onComplete(evalsha -> {
            if (evalsha.failed() && isNoScript(evalsha.cause())) {
                lastAnswer = System.nanoTime();
                String[] eval = cmd.clone();
                eval[0] = script.body();
                EventLoopConnections.Sent again = connections.send(request(Command.EVAL, eval));
                pending.sent = again;
                again.answer().onComplete(onReply);
            } else {
                onReply.handle(evalsha);
            }
        });
    }

    /**
     * The most decisions one call carries unless configured: measured against 4, 8, 16 and 128 (docs/BENCHMARKS.md);
     * larger calls leave Redis idle while the client prepares the next, smaller ones pay more calls.
     */
    public static final int DEFAULT_BATCH = 32;

    /** The largest batch size accepted: a script call blocks Redis for every decision it carries. */
    public static final int MAX_BATCH = 1000;

    /** The most decisions one call carries; more in one event-loop turn make several calls. */
    private final int batchSize;

    /** Each event loop's decisions of the current turn, not sent yet. */
    private final ThreadLocal<Batch> batches = ThreadLocal.withInitial(Batch::new);

    /**
     * The decisions one event loop makes in one turn of its loop (every request read in one pass over
     * its sockets, every answer handled), sent together when the turn ends: one {@code EVALSHA} of
     * {@link DecisionScripts#BATCH} for two or more, the strategy's own script for one. A decision waits
     * no longer than the rest of the turn it was asked in. Each keeps its own deadline.
     */
    private final class Batch {
        private List<Queued> queued = new ArrayList<>();

        CompletionStage<Decision> add(Context loop, Policy policy, DecisionScripts.Shape shape, String[] cmd) {
            Pending pending = new Pending(shape.script());
            pending.arm();
            queued.add(new Queued(policy, shape, cmd, pending));
            if (queued.size() == 1) {
                loop.runOnContext(v -> flush());
            }
            return pending.result;
        }

        private void flush() {
            List<Queued> all = queued;
            queued = new ArrayList<>();
            for (int from = 0; from < all.size(); from += batchSize) {
                List<Queued> part = all.subList(from, Math.min(all.size(), from + batchSize));
                if (part.size() == 1) {
                    Queued q = part.get(0);
                    call(q.shape().script(), q.cmd(), q.pending(), reply -> answer(q.pending(), q.policy(), reply));
                } else {
                    send(List.copyOf(part));
                }
            }
        }

        private void send(List<Queued> part) {
            int keys = 0;
            int size = 3;
            for (Queued q : part) {
                keys += q.shape().keySuffixes().size();
                size += q.cmd().length + 1; // its keys and ARGV, plus the batch head's three, less SHA and key count
            }
            String[] cmd = new String[size];
            cmd[0] = DecisionScripts.BATCH.sha1();
            cmd[1] = Integer.toString(keys);
            int k = 2;
            int a = 2 + keys;
            cmd[a++] = Integer.toString(part.size());
            for (Queued q : part) {
                String[] one = q.cmd();
                int n = q.shape().keySuffixes().size();
                System.arraycopy(one, 2, cmd, k, n);
                k += n;
                int args = one.length - 2 - n;
                for (String h : q.shape().batchHead()) {
                    cmd[a++] = h;
                }
                System.arraycopy(one, 2 + n, cmd, a, args);
                a += args;
            }
            Pending shared = part.get(0).pending();
            call(DecisionScripts.BATCH, cmd, shared, reply -> {
                for (Queued q : part) {
                    q.pending().sent = shared.sent;
                }
                for (int i = 0; i < part.size(); i++) {
                    Queued q = part.get(i);
                    if (reply.failed()) {
                        answer(q.pending(), q.policy(), reply);
                        continue;
                    }
                    io.vertx.redis.client.Response all = reply.result();
                    io.vertx.redis.client.Response one = all != null && all.type() == io.vertx.redis.client.ResponseType.MULTI
                            && i < all.size() ? all.get(i) : null;
                    answer(q.pending(), q.policy(), one != null && one.type() == io.vertx.redis.client.ResponseType.MULTI
                            ? io.vertx.core.Future.succeededFuture(one)
                            : io.vertx.core.Future.failedFuture(ErrorType.create(one != null ? one.toString()
                                    : "the batch's reply has no answer for decision " + i + ": " + all)));
                }
            });
            for (Queued q : part) {
                q.pending().sent = shared.sent; // the connection a deadline of any of them gives up
            }
        }
    }

    /** A decision waiting for its turn to end. */
    private record Queued(Policy policy, DecisionScripts.Shape shape, String[] cmd, Pending pending) {
    }

    /**
     * One decision in flight and its deadline. At the deadline it fails only if Redis has been silent
     * for longer than its recent answer times allow ({@link #patience}) and the deadline itself ran on
     * time; otherwise it waits on, up to the late limit (see the class comment).
     */
    private final class Pending implements Runnable {
        final CompletableFuture<Decision> result = new CompletableFuture<>();
        final LuaScript script;
        final long sentAt = System.nanoTime();
        /** The event loop the call was made on, whose connection (and reads) it waits for; null off an event loop. */
        final Context eventLoop = eventLoopContext();
        volatile EventLoopConnections.Sent sent;
        volatile ScheduledFuture<?> deadline;
        long due;

        Pending(LuaScript script) {
            this.script = script;
        }

        void arm() {
            schedule(sentAt, timeoutNanos);
        }

        private void schedule(long now, long in) {
            due = now + in;
            deadline = deadlines.schedule(this, in, TimeUnit.NANOSECONDS);
        }

        /**
         * The deadline. On an event loop the verdict is passed to that loop first: it reads whatever
         * answers are waiting in its sockets before it runs the verdict, so an answer that arrived but
         * was not read yet (a busy process) is never taken for silence.
         */
        @Override
        public void run() {
            if (result.isDone()) {
                return;
            }
            if (eventLoop == null) {
                judge(System.nanoTime());
                return;
            }
            long posted = System.nanoTime();
            eventLoop.runOnContext(v -> judge(posted));
        }

        /** @param posted when the deadline handed the verdict to the event loop (its wait there is the loop's own lag) */
        private void judge(long posted) {
            if (result.isDone()) {
                return;
            }
            long now = System.nanoTime();
            long patience = patience(now);
            long silentSince = Math.max(lastAnswer, sentAt);
            boolean silent = now - silentSince >= patience;
            boolean paused = posted - due >= timeoutNanos / 2 || now - posted >= timeoutNanos / 2;
            boolean tooLate = now - sentAt >= lateLimitNanos;
            if (!tooLate && (!silent || paused)) {
                long in = silent ? timeoutNanos : silentSince + patience - now;
                schedule(now, Math.max(in, 1_000_000L));
                return;
            }
            String why = tooLate
                    ? "Redis did not answer " + script.name() + " within " + lateLimit.toMillis()
                            + " ms (slidegate.redis.late-limit)"
                    : "Redis answered nothing for " + (now - silentSince) / 1_000_000 + " ms while " + script.name()
                            + " waited (slidegate.redis.timeout " + timeout.toMillis() + " ms; its answers took up to "
                            + recent.max(now) / 1_000_000 + " ms lately)";
            if (result.completeExceptionally(new RedisStoreException(why, null)) && sent != null) {
                sent.giveUpConnection(); // a connection that does not answer is not used again
            }
        }
    }

    /**
     * How long Redis may stay silent before a decision waiting on it fails: twice the longest answer
     * time of the last seconds, at least the budget ({@code timeout}), at most the late limit. A Redis
     * that answers in a millisecond is given up after the budget; one that a busy machine has made
     * answer in 80 ms is given 160 ms, like a retransmission timeout follows the round trips it sees.
     */
    private long patience(long now) {
        return Math.min(lateLimitNanos, Math.max(timeoutNanos, 2 * recent.max(now)));
    }

    private static Context eventLoopContext() {
        Context c = Vertx.currentContext();
        return c != null && c.isEventLoopContext() && Context.isOnEventLoopThread() ? c : null;
    }

    /** Completes a decision with Redis's reply, unless its deadline came first. */
    private void answer(Pending pending, Policy policy, AsyncResult<io.vertx.redis.client.Response> reply) {
        LuaScript script = pending.script;
        CompletableFuture<Decision> result = pending.result;
        ScheduledFuture<?> deadline = pending.deadline;
        if (deadline != null) {
            deadline.cancel(false);
        }
        if (reply.succeeded() || isErrorReply(reply.cause())) {
            long now = System.nanoTime(); // a reply, even an error reply, is Redis answering; a broken connection is not
            lastAnswer = now;
            recent.record(now, now - pending.sentAt);
        } else if (pending.sent != null) {
            pending.sent.giveUpConnection(); // the connection failed: the next decision on this event loop opens another
        }
        if (reply.failed()) {
            result.completeExceptionally(new RedisStoreException(
                    "Redis failed on " + script.name() + ": " + reply.cause().getMessage(), reply.cause()));
            return;
        }
        try {
            result.complete(DecisionScripts.decode(policy, reply.result()));
        } catch (RuntimeException e) {
            result.completeExceptionally(
                    new RedisStoreException("Redis answered " + script.name() + " unexpectedly: " + reply.result(), e));
        }
    }

    /** An error Redis itself sent (WRONGTYPE, NOSCRIPT, OOM...), as opposed to a connection that failed. */
    private static boolean isErrorReply(Throwable cause) {
        return cause instanceof ErrorType e && !"CONNECTION_CLOSED".equals(e.getMessage());
    }

    private static Request request(Command command, String[] args) {
        Request r = Request.cmd(command);
        for (String a : args) {
            r.arg(a);
        }
        return r;
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

    /**
     * The exact {@code EVALSHA} arguments of one decision (SHA, key count, keys, arguments), for tools
     * that replay it outside Java, e.g. {@code redis-benchmark} as the ceiling of this script.
     */
    public static List<String> evalshaArguments(Policy policy, String key, int cost) {
        return List.of(DecisionScripts.Shape.of(policy).evalsha(keyPrefix(policy, key), cost, policy.countRejected()));
    }

    /** The script body of a strategy, for {@code SCRIPT LOAD} by tools. */
    public static String scriptBody(Policy policy) {
        return DecisionScripts.Shape.of(policy).script().body();
    }

    private static final int SCAN_COUNT = 1000;

    /**
     * Keys by {@code SCAN} (never {@code KEYS}) of each client's first key, node by node (one node, or
     * every master of a cluster), in Redis' order. The cursor is {@code <node>:<scan cursor>:<keys of
     * that step already returned>}, so a page never exceeds the limit; like SCAN itself, a key may
     * appear twice across pages while the keyspace (or the cluster's topology) changes.
     */
    @Override
    public CompletionStage<KeyPage> keys(Policy policy, String cursor, int limit) {
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
        String first = keys(policy, "*").get(0);
        String prefix = keyPrefix(policy, "").replace("}", "");
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
     * One SCAN pass over every Slidegate key on every node, however many policies: a policy counts
     * the keys of its first limit.
     */
    @Override
    public CompletionStage<Map<String, Long>> counts(java.util.Collection<Policy> policies) {
        Map<String, String> suffixByPolicy = new java.util.HashMap<>();
        for (Policy p : policies) {
            String first = keys(p, "*").get(0);
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

    @Override
    public CompletionStage<Long> count(Policy policy) {
        return counts(List.of(policy)).thenApply(c -> c.get(policy.name()));
    }

    @Override
    public CompletionStage<Void> reset(Policy policy, String key) {
        return withTimeout(redis.execute(Command.DEL, keys(policy, key).toArray(String[]::new)), "DEL")
                .chain(() -> withTimeout(redis.execute(Command.INCR, RESETS), "INCR"))
                .replaceWithVoid()
                .subscribeAsCompletionStage();
    }

    /**
     * The key counting resets: every instance reads it a few times a second and drops the refusals it
     * remembers ({@link RefusalCache}) when it changes, on a single Redis and a cluster alike.
     */
    public static final String RESETS = "slidegate:resets";

    /**
     * Reads {@link #RESETS} now and every {@code every}, and runs {@code onChange} when it differs from the
     * last value read (when it cannot be read now, the first periodic read counts as a change): within {@code every} of a reset
     * made on any
     * instance, or of a Redis wiped behind Slidegate's back. A failed read is skipped; the next one
     * tries again.
     *
     * @return stops the reading
     */
    public AutoCloseable watchResets(io.vertx.core.Vertx vertx, Duration every, Runnable onChange) {
        // the first value is read now, while the service starts and nothing is remembered yet, so that
        // the first periodic read does not count as a change and drop refusals remembered meanwhile (a
        // native executable takes requests 50 ms after it starts: RefusalCacheIT); when it cannot be read
        // now, the first periodic read counts as a change, which is safe
        String initial = null;
        try {
            io.vertx.mutiny.redis.client.Response r = redis.execute(Command.GET, RESETS).await().atMost(lateLimit);
            initial = r == null ? "" : r.toString();
        } catch (RuntimeException e) {
            // not now (Redis away, or a thread that must not block): the first periodic read decides
        }
        java.util.concurrent.atomic.AtomicReference<String> lastSeen = new java.util.concurrent.atomic.AtomicReference<>(
                initial);
        long timer = vertx.setPeriodic(every.toMillis(), id -> redis.execute(Command.GET, RESETS).subscribe().with(r -> {
            String seen = r == null ? "" : r.toString();
            if (!seen.equals(lastSeen.getAndSet(seen))) {
                onChange.run();
            }
        }, e -> {
        }));
        return () -> vertx.cancelTimer(timer);
    }

    /**
     * The budget of admin reads and resets: the late limit. They are an operator's, not on any request's
     * path, and a Redis that answers late (a busy machine, cold connections to each cluster master) is
     * not down for them either.
     */
    private <T> Uni<T> withTimeout(Uni<T> call, String what) {
        return call.ifNoItem().after(lateLimit).fail()
                .onFailure().transform(e -> new RedisStoreException(e instanceof TimeoutException
                        ? "Redis did not answer " + what + " within " + lateLimit.toMillis()
                                + " ms (slidegate.redis.late-limit)"
                        : "Redis failed on " + what + ": " + e.getMessage(), e));
    }

    private static boolean isNoScript(Throwable e) {
        String m = e.getMessage();
        return m != null && m.startsWith("NOSCRIPT");
    }
}
