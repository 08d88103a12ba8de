package dev.slidegate.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.IntSupplier;

import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;

import org.jboss.logging.Logger;

import dev.slidegate.core.BoundedInspection;
import dev.slidegate.core.Breaker;
import dev.slidegate.core.Clock;
import dev.slidegate.core.DecisionStore;
import dev.slidegate.core.FallbackStore;
import dev.slidegate.core.ResetHooks;
import dev.slidegate.core.Secrets;
import dev.slidegate.core.StoreInspection;
import dev.slidegate.memory.MemoryStore;
import dev.slidegate.metrics.MeteredStore;
import dev.slidegate.redis.ClusterNodes;
import dev.slidegate.redis.Eviction;
import dev.slidegate.redis.InstanceRegistry;
import dev.slidegate.redis.RedisClock;
import dev.slidegate.redis.RedisNodes;
import dev.slidegate.redis.RedisStore;
import dev.slidegate.redis.RefusalCache;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.redis.client.RedisClientName;
import io.quarkus.redis.datasource.ReactiveRedisDataSource;
import io.quarkus.runtime.configuration.ConfigurationException;

/**
 * The Redis stack, built from the Quarkus Redis client {@code slidegate.redis.client} names. A bean only where
 * the service has {@code quarkus-redis-client} ({@link OptionalParts}); no scope annotation, so that bean
 * discovery never finds it on its own.
 */
public class RedisStackFactory implements RedisStacks {

    private static final Logger LOG = Logger.getLogger("dev.slidegate");

    /** The key readiness writes, with a 10 s expiry. */
    static final String PROBE = "slidegate:ready";

    /** How often each instance measures its clock against the Redis server's (see {@code RedisClock}). */
    static final Duration FLEET_CLOCK_EVERY = Duration.ofSeconds(5);

    private final Instance<ReactiveRedisDataSource> clients;
    private final Instance<ReactiveRedisDataSource> defaultClient;
    private final Instance<io.vertx.mutiny.core.Vertx> vertx;
    private RedisStore decisions;
    /** The client the stack was built on. */
    private ReactiveRedisDataSource source;

    /**
     * {@code own} is never read: it names Slidegate's own client, {@value RedisClientSettings#OWN_CLIENT}, so that
     * Quarkus creates it (a client the service configures only by {@code quarkus.redis.slidegate.hosts} would not
     * exist); {@code defaultClient} likewise makes sure the service's default client exists.
     */
    RedisStackFactory(@Any Instance<ReactiveRedisDataSource> clients, Instance<ReactiveRedisDataSource> defaultClient,
            @RedisClientName(RedisClientSettings.OWN_CLIENT) Instance<ReactiveRedisDataSource> own,
            Instance<io.vertx.mutiny.core.Vertx> vertx) {
        this.clients = clients;
        this.defaultClient = defaultClient;
        this.vertx = vertx;
    }

    private ReactiveRedisDataSource client(RedisClientSettings client) {
        Instance<ReactiveRedisDataSource> found = client.isDefault() ? defaultClient
                : clients.select(RedisClientName.Literal.of(client.name()));
        if (!found.isResolvable()) {
            throw new ConfigurationException("Invalid Slidegate configuration: slidegate.redis.client=" + client.name()
                    + ": the service has no Redis client of that name. Use " + RedisClientSettings.OWN_CLIENT
                    + " (configured by quarkus.redis." + RedisClientSettings.OWN_CLIENT + ".hosts), "
                    + RedisClientSettings.DEFAULT_CLIENT + " (the service's default client, quarkus.redis.hosts), "
                    + "or a client the service injects with @RedisClientName(\"" + client.name() + "\")");
        }
        return found.get();
    }

    @Override
    public StoreStack stack(SlidegateConfig config, RedisClientSettings client, Clock clock, Instance<MeterRegistry> metrics) {
        ReactiveRedisDataSource redis = client(client);
        source = redis;
        List<AutoCloseable> owned = new ArrayList<>();
        RedisNodes nodes;
        if (client.cluster()) {
            ClusterNodes clusterNodes = new ClusterNodes(redis, vertx.get(),
                    ClusterNodes.optionsLike(client.hosts().get().split(",")[0], client.password().orElse(null)));
            owned.add(clusterNodes);
            nodes = clusterNodes;
            String version = io.vertx.redis.client.Redis.class.getPackage().getImplementationVersion();
            if (ClusterNodes.clientMayDeadlock(version)) {
                LOG.warnf("Redis Cluster with io.vertx:vertx-redis-client %s: its cluster client can deadlock for good "
                        + "under load (vert-x3/vertx-redis-client#549); pin 4.5.27 or later in your pom "
                        + "(see Slidegate's docs/operations.md, Redis Cluster)", version);
            }
        } else {
            nodes = RedisNodes.single(redis);
        }
        RedisStore.Options options = RedisStore.Options.of(config.redis().timeout())
                .withLateLimit(config.redis().lateLimit()).withBatchSize(config.redis().batchSize())
                .withClock(clock);
        decisions = new RedisStore(redis, nodes, options);
        owned.add(decisions);
        IntSupplier instances = instances(config, clock, owned);
        DecisionStore remote = decisions;
        // hot keys admit from permits taken ahead: RefusalCache(HotKeys(Redis))
        dev.slidegate.core.HotKeys hot = config.redis().takeAhead()
                ? new dev.slidegate.core.HotKeys(decisions, decisions, clock::nanoTime, instances, takeAheadOff(config))
                : null;
        if (hot != null) {
            remote = hot;
            registerHotKeys(hot, metrics);
        }
        Runnable forgetHot = hot == null ? () -> {
        } : hot::forgetAll;
        RefusalCache refusals = null;
        if (config.redis().refusalCacheSize() > 0) {
            refusals = new RefusalCache(remote, config.redis().refusalCacheSize(), clock::nanoTime);
            RefusalCache forget = refusals;
            // a reset on any instance (or a wiped Redis) drops what every instance remembers and the batches it holds
            owned.add(decisions.watchResets(vertx.get().getDelegate(), StoreProducer.RESET_POLL, () -> {
                forgetHot.run();
                forget.forgetAll();
            }));
            if (metrics.isResolvable()) {
                io.micrometer.core.instrument.FunctionCounter.builder("slidegate.refusals.local", refusals,
                        RefusalCache::answeredLocally)
                        .description(
                                "Refusals answered from the instance's memory of an earlier Redis refusal, without a Redis call")
                        .register(metrics.get());
            }
            remote = refusals;
        } else if (hot != null) {
            owned.add(decisions.watchResets(vertx.get().getDelegate(), StoreProducer.RESET_POLL, forgetHot));
        }
        FallbackStore fallback = fallback(config, clock, remote, instances, metrics);
        DecisionStore store = fallback;
        if (metrics.isResolvable()) {
            store = new MeteredStore(store, metrics.get(), clock::nanoTime);
        }
        store = new dev.slidegate.core.SlotWaits(store, clock::nanoTime); // calls waiting for a slot, queued in Redis
        dev.slidegate.api.OverrideSource overrides = new dev.slidegate.redis.RedisOverrideSource(redis,
                vertx.get().getDelegate(), StoreProducer.OVERRIDES_POLL, config.redis().lateLimit(), config.overrides().max());
        // the admin reads Redis on connections of its own, one call at a time each (no batching with
        // decisions), with the patience of a late Redis: never the decisions' connections or budget
        RedisStore admin = new RedisStore(redis, nodes,
                RedisStore.Options.of(config.redis().lateLimit()).withLateLimit(config.redis().lateLimit()).withBatchSize(1)
                        .withClock(clock));
        owned.add(admin);
        StoreStack.WriteProbe probe = budget -> {
            try {
                redis.execute("SET", PROBE, "1", "PX", "10000").await().atMost(budget);
                return null;
            } catch (RuntimeException e) {
                return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            }
        };
        // a reset forgets the key's local window of the fail modes and every refusal remembered here
        RefusalCache remembered = refusals;
        StoreInspection inspection = new ResetHooks(admin, (policy, key) -> {
            fallback.forget(policy, key);
            forgetHot.run();
            if (remembered != null) {
                remembered.forgetAll();
            }
        });
        // override expiry is judged by the Redis server's clock, so instances whose clocks differ agree on it
        // its readings of Redis' TIME also place held calls' permits on this instance's clock (single Redis only)
        RedisClock fleetClock = new RedisClock(clock, redis, vertx.get().getDelegate(), FLEET_CLOCK_EVERY,
                Duration.ofSeconds(1), decisions.instants());
        owned.add(fleetClock);
        return new StoreStack(store, Optional.of(fallback.breaker()), Optional.ofNullable(refusals), owned, overrides,
                new BoundedInspection(inspection, StoreStack.ADMIN_IN_FLIGHT), probe, fleetClock, Optional.ofNullable(hot),
                decisions.instants());
    }

    @Override
    public void warmUp(StoreStack stack, RedisClientSettings client) {
        String failed = decisions.warmUp(Duration.ofSeconds(2), vertx.get().getDelegate());
        if (failed != null) {
            String refusal = dev.slidegate.core.WriteRefusals.explain(failed);
            LOG.warnf("Redis (%s) does not answer at start-up (%s): policies decide by their fail mode until it does%s",
                    Secrets.redact(client.hosts().orElse("")), Secrets.redact(failed), refusal == null ? "" : ". " + refusal);
            return;
        }
        String eviction = Eviction.policy(source, Duration.ofSeconds(1));
        if (Eviction.dropsWindows(eviction)) {
            LOG.warnf("Redis evicts keys at maxmemory with maxmemory-policy %s: under a flood of keys it can drop the "
                    + "windows of callers, who then start afresh. Set maxmemory-policy noeviction (writes then fail "
                    + "and policies decide by their fail mode) or volatile-ttl (windows nearest their end go first); "
                    + "see Slidegate's docs/operations.md", eviction);
        }
    }

    /**
     * The policies whose {@code take-ahead} is off, read once from the configuration: a policy's own setting, else the
     * template's, else on.
     */
    private static java.util.function.Predicate<String> takeAheadOff(SlidegateConfig config) {
        boolean byDefault = config.defaults().takeAhead().orElse(true);
        java.util.Set<String> unlikeDefault = new java.util.HashSet<>();
        config.policies().forEach((name, p) -> {
            if (p.takeAhead().isPresent() && p.takeAhead().get() != byDefault) {
                unlikeDefault.add(name);
            }
        });
        return name -> byDefault == unlikeDefault.contains(name);
    }

    /** How many instances share Redis: learned through Redis itself, or configured. */
    private IntSupplier instances(SlidegateConfig config, Clock clock, List<AutoCloseable> owned) {
        if (config.fallback().instances().isPresent()) {
            int fixed = config.fallback().instances().get();
            return () -> fixed;
        }
        InstanceRegistry registry = new InstanceRegistry(source, vertx.get(), Duration.ofSeconds(1), Duration.ofSeconds(3),
                Duration.ofSeconds(1), clock::nanoTime);
        owned.add(registry);
        return registry;
    }

    /** With metrics: what hot keys took ahead, used and gave back ({@code slidegate_ahead_permits_total{what}}). */
    private static void registerHotKeys(dev.slidegate.core.HotKeys hot, Instance<MeterRegistry> metrics) {
        if (!metrics.isResolvable()) {
            return;
        }
        MeterRegistry registry = metrics.get();
        String description = "Permits of hot keys taken ahead from Redis in batches, used by calls, given back unused";
        io.micrometer.core.instrument.FunctionCounter.builder("slidegate.ahead.permits", hot,
                dev.slidegate.core.HotKeys::taken).description(description).tag("what", "taken").register(registry);
        io.micrometer.core.instrument.FunctionCounter.builder("slidegate.ahead.permits", hot,
                dev.slidegate.core.HotKeys::used).description(description).tag("what", "used").register(registry);
        io.micrometer.core.instrument.FunctionCounter.builder("slidegate.ahead.permits", hot,
                dev.slidegate.core.HotKeys::givenBack).description(description).tag("what", "given-back")
                .register(registry);
        io.micrometer.core.instrument.Gauge.builder("slidegate.ahead.hot.keys", hot, h -> h.hotKeys())
                .description("Keys hot on this instance, admitted from permits taken ahead").register(registry);
    }

    /**
     * {@code Fallback(Redis, Memory, Breaker)} with the instance count learned through Redis (or configured). With
     * metrics, store errors and fail-mode transitions are counted: {@code slidegate_store_errors_total{store}} and
     * {@code slidegate_failmode_transitions_total{to}} ({@code to="fail-mode"} when Redis starts being skipped,
     * {@code to="store"} when it is used again). What it creates that must be closed is added to {@code owned}.
     */
    private FallbackStore fallback(SlidegateConfig config, Clock clock, DecisionStore redis, IntSupplier instances,
            Instance<MeterRegistry> metrics) {
        Consumer<Breaker.State> transitions = s -> {
        };
        Consumer<Throwable> errors = e -> {
        };
        if (metrics.isResolvable()) {
            MeterRegistry registry = metrics.get();
            Counter errorCount = Counter.builder("slidegate.store.errors")
                    .description("Failed calls to the shared store (each decided by the fail mode)")
                    .tag("store", redis.name()).register(registry);
            Counter toFailMode = Counter.builder("slidegate.failmode.transitions")
                    .description("Switches between the store and the fail modes").tag("to", "fail-mode").register(registry);
            Counter toStore = Counter.builder("slidegate.failmode.transitions")
                    .description("Switches between the store and the fail modes").tag("to", "store").register(registry);
            transitions = s -> (s == Breaker.State.OPEN ? toFailMode : toStore).increment();
            errors = e -> errorCount.increment();
        }
        Breaker breaker = new Breaker("Redis", config.redis().failureThreshold(), config.redis().coolDown().toNanos(),
                clock::nanoTime, transitions);
        return new FallbackStore(redis, new MemoryStore(clock, config.memory().maxKeys()), instances, breaker, errors);
    }
}
