package dev.slidegate.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.IntSupplier;

import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

import dev.slidegate.core.Breaker;
import dev.slidegate.core.Clock;
import dev.slidegate.core.FallbackStore;
import dev.slidegate.core.LimiterStore;
import dev.slidegate.core.Secrets;
import dev.slidegate.memory.MemoryStore;
import dev.slidegate.metrics.MeteredStore;
import dev.slidegate.redis.ClusterNodes;
import dev.slidegate.redis.InstanceRegistry;
import dev.slidegate.redis.RedisNodes;
import dev.slidegate.redis.RedisStore;
import dev.slidegate.redis.RefusalCache;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.arc.DefaultBean;
import io.quarkus.redis.datasource.ReactiveRedisDataSource;
import io.quarkus.runtime.configuration.ConfigurationException;

/** Produces the {@link LimiterStore} chosen by {@code slidegate.store}, and the clock of in-process stores. */
@Singleton
public class StoreProducer {

    private static final Logger LOG = Logger.getLogger("dev.slidegate");

    /** How often each instance looks for resets made elsewhere (see {@link RefusalCache}). */
    static final Duration RESET_POLL = Duration.ofMillis(100);

    /** How often each instance looks for overrides changed elsewhere (see {@code RedisOverrideSource}). */
    static final Duration OVERRIDES_POLL = Duration.ofMillis(250);

    /** The clock of in-process stores; tests replace it with a settable one. */
    @Produces
    @Singleton
    @DefaultBean
    Clock clock() {
        return Clock.system();
    }

    /**
     * The Redis stack: {@code Fallback(Redis, Memory, Breaker)} with the instance count learned through
     * Redis (or configured). With metrics, store errors and fail-mode transitions are counted:
     * {@code slidegate_store_errors_total{store}} and {@code slidegate_failmode_transitions_total{to}}
     * ({@code to="fail-mode"} when Redis starts being skipped, {@code to="store"} when it is used again).
     * What it creates that must be closed is added to {@code owned}.
     */
    private static FallbackStore redisStack(SlidegateConfig config, Clock clock, LimiterStore redis,
            ReactiveRedisDataSource source,
            io.vertx.mutiny.core.Vertx vertx, Instance<MeterRegistry> metrics, List<AutoCloseable> owned) {
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
                    .description("Switches between the store and the fail modes")
                    .tag("to", "fail-mode").register(registry);
            Counter toStore = Counter.builder("slidegate.failmode.transitions")
                    .description("Switches between the store and the fail modes")
                    .tag("to", "store").register(registry);
            transitions = s -> (s == Breaker.State.OPEN ? toFailMode : toStore).increment();
            errors = e -> errorCount.increment();
        }
        IntSupplier instances;
        if (config.fallback().instances().isPresent()) {
            int fixed = config.fallback().instances().get();
            instances = () -> fixed;
        } else {
            InstanceRegistry registry = new InstanceRegistry(source, vertx, Duration.ofSeconds(1), Duration.ofSeconds(3),
                    Duration.ofSeconds(1));
            owned.add(registry);
            instances = registry;
        }
        Breaker breaker = new Breaker("Redis", config.redis().failureThreshold(), config.redis().coolDown().toNanos(),
                System::nanoTime,
                transitions);
        return new FallbackStore(redis, new MemoryStore(clock, config.memory().maxKeys()), instances, breaker, errors);
    }

    /**
     * Closes what the stack owns (the instance registry's entry and timer, the Redis store's deadline thread, cluster clients).
     */
    void close(@Disposes StoreStack stack) {
        stack.close();
    }

    /** The store every decision goes to: the top of the {@link StoreStack}. */
    @Produces
    @Singleton
    LimiterStore store(StoreStack stack) {
        return stack.decisions();
    }

    /** The store stack chosen by {@code slidegate.store}, assembled here and nowhere else. */
    @Produces
    @Singleton
    StoreStack stack(SlidegateConfig config, Clock clock, @ConfigProperty(name = "quarkus.redis.hosts") Optional<String> hosts,
            @ConfigProperty(name = "quarkus.redis.client-type") Optional<String> clientType,
            @ConfigProperty(name = "quarkus.redis.password") Optional<String> password,
            Instance<ReactiveRedisDataSource> redis, Instance<io.vertx.mutiny.core.Vertx> vertx,
            Instance<MeterRegistry> metrics) {
        // the store is built while Quarkus starts, before any start-up observer runs (SettingsCheckOnStart
        // covers a service that builds none): check the settings it is built from first
        SettingsCheck.check(org.eclipse.microprofile.config.ConfigProvider.getConfig(), config);
        String mode = config.store().trim().toLowerCase(Locale.ROOT);
        boolean redisConfigured = hosts.filter(h -> !h.isBlank()).isPresent();
        String why;
        boolean useRedis;
        switch (mode) {
            case "memory" -> {
                useRedis = false;
                why = "slidegate.store=memory";
            }
            case "redis" -> {
                if (!redisConfigured) {
                    throw new ConfigurationException(
                            "Invalid Slidegate configuration: slidegate.store=redis needs quarkus.redis.hosts, "
                                    + "e.g. quarkus.redis.hosts=redis://localhost:6379");
                }
                useRedis = true;
                why = "slidegate.store=redis";
            }
            case "auto" -> {
                useRedis = redisConfigured;
                why = "slidegate.store=auto and quarkus.redis.hosts is " + (redisConfigured ? "set" : "not set");
            }
            default -> throw new ConfigurationException("Invalid Slidegate configuration: slidegate.store: '" + config.store()
                    + "' is not a store: expected auto, memory or redis");
        }
        boolean cluster = clientType.map(t -> t.trim().equalsIgnoreCase("cluster")).orElse(false);
        List<AutoCloseable> owned = new ArrayList<>();
        RedisStore redisStore = null;
        RefusalCache refusals = null;
        FallbackStore fallback = null;
        LimiterStore store;
        if (useRedis) {
            RedisNodes nodes;
            if (cluster) {
                ClusterNodes clusterNodes = new ClusterNodes(redis.get(), vertx.get(),
                        ClusterNodes.optionsLike(hosts.get().split(",")[0],
                                password.orElse(null)));
                owned.add(clusterNodes);
                nodes = clusterNodes;
                String client = io.vertx.redis.client.Redis.class.getPackage().getImplementationVersion();
                if (ClusterNodes.clientMayDeadlock(client)) {
                    LOG.warnf("Redis Cluster with io.vertx:vertx-redis-client %s: its cluster client can deadlock for good "
                            + "under load (vert-x3/vertx-redis-client#549); pin 4.5.27 or later in your pom "
                            + "(see Slidegate's docs/operations.md, Redis Cluster)", client);
                }
            } else {
                nodes = RedisNodes.single(redis.get());
            }
            redisStore = new RedisStore(redis.get(), config.redis().timeout(), config.redis().lateLimit(), nodes,
                    config.redis().batchSize());
            owned.add(redisStore);
            LimiterStore remote = redisStore;
            if (config.redis().refusalCacheSize() > 0) {
                refusals = new RefusalCache(redisStore, config.redis().refusalCacheSize(), System::nanoTime);
                // a reset on any instance (or a wiped Redis) drops what every instance remembers
                owned.add(redisStore.watchResets(vertx.get().getDelegate(), RESET_POLL, refusals::forgetAll));
                if (metrics.isResolvable()) {
                    io.micrometer.core.instrument.FunctionCounter.builder("slidegate.refusals.local", refusals,
                            RefusalCache::answeredLocally)
                            .description(
                                    "Refusals answered from the instance's memory of an earlier Redis refusal, without a Redis call")
                            .register(metrics.get());
                }
                remote = refusals;
            }
            fallback = redisStack(config, clock, remote, redis.get(), vertx.get(), metrics, owned);
            store = fallback;
        } else {
            store = new MemoryStore(clock, config.memory().maxKeys());
        }
        if (metrics.isResolvable()) {
            store = new MeteredStore(store, metrics.get());
        }
        if (useRedis && cluster) {
            why += "; Redis Cluster (quarkus.redis.client-type=cluster)";
        }
        LOG.infof("Slidegate store: %s (%s)%s", store.name(), why,
                config.enabled() ? "" : "; limits are OFF (slidegate.enabled=false)");
        if (useRedis) { // connect and load the scripts now, so the first requests do not pay for it
            String failed = redisStore.warmUp(Duration.ofSeconds(2), vertx.get().getDelegate());
            if (failed != null) {
                String refusal = dev.slidegate.core.WriteRefusals.explain(failed);
                LOG.warnf("Redis (%s) does not answer at start-up (%s): policies decide by their fail mode until it does%s",
                        Secrets.redact(hosts.get()), Secrets.redact(failed), refusal == null ? "" : ". " + refusal);
            } else {
                String eviction = redisStore.evictionPolicy(Duration.ofSeconds(1));
                if (RedisStore.evictsWindows(eviction)) {
                    LOG.warnf("Redis evicts keys at maxmemory with maxmemory-policy %s: under a flood of keys it can drop the "
                            + "windows of callers, who then start afresh. Set maxmemory-policy noeviction (writes then fail "
                            + "and policies decide by their fail mode) or volatile-ttl (windows nearest their end go first); "
                            + "see Slidegate's docs/operations.md", eviction);
                }
            }
        }
        dev.slidegate.api.OverrideSource overrides = useRedis
                ? new dev.slidegate.redis.RedisOverrideSource(redis.get(), vertx.get().getDelegate(), OVERRIDES_POLL,
                        config.redis().lateLimit(), config.overrides().max())
                : new dev.slidegate.core.LocalOverrideSource();
        LimiterStore adminReads = store;
        if (useRedis) {
            // the admin reads Redis on connections of its own, one call at a time each (no batching with
            // decisions), with the patience of a late Redis: never the decisions' connections or budget
            RedisStore admin = new RedisStore(redis.get(), config.redis().lateLimit(), config.redis().lateLimit(),
                    redisStore.nodes(), 1);
            owned.add(admin);
            adminReads = admin;
        }
        return new StoreStack(store, Optional.ofNullable(fallback).map(FallbackStore::breaker), Optional.ofNullable(refusals),
                owned, overrides, new dev.slidegate.core.BoundedStore(adminReads, StoreStack.ADMIN_IN_FLIGHT));
    }
}
