package dev.slidegate.config;

import dev.slidegate.core.Breaker;
import dev.slidegate.core.Secrets;
import dev.slidegate.metrics.MeteredStore;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import dev.slidegate.core.Clock;
import dev.slidegate.core.FallbackStore;
import dev.slidegate.core.LimiterStore;
import dev.slidegate.memory.MemoryStore;
import dev.slidegate.redis.ClusterNodes;
import dev.slidegate.redis.RedisNodes;
import dev.slidegate.redis.RedisStore;
import io.quarkus.arc.DefaultBean;
import io.quarkus.redis.datasource.ReactiveRedisDataSource;
import io.quarkus.runtime.configuration.ConfigurationException;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.util.Locale;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/** Produces the {@link LimiterStore} chosen by {@code slidegate.store}, and the clock of in-process stores. */
@Singleton
public class StoreProducer {

    private static final Logger LOG = Logger.getLogger("dev.slidegate");

    /** The clock of in-process stores; tests replace it with a settable one. */
    @Produces
    @Singleton
    @DefaultBean
    Clock clock() {
        return Clock.system();
    }

    /**
     * Counts and times decisions ({@link MeteredStore}); with Redis also store errors and fail-mode
     * transitions: {@code slidegate_store_errors_total{store}} and {@code slidegate_failmode_transitions_total{to}}
     * ({@code to="fail-mode"} when Redis starts being skipped, {@code to="store"} when it is used again).
     */
    private static LimiterStore metered(LimiterStore store, MeterRegistry registry) {
        if (store instanceof FallbackStore fallback) {
            Counter errors = Counter.builder("slidegate.store.errors").description("Failed calls to the shared store (each decided by the fail mode)")
                    .tag("store", fallback.remote().name()).register(registry);
            Counter toFailMode = Counter.builder("slidegate.failmode.transitions").description("Switches between the store and the fail modes")
                    .tag("to", "fail-mode").register(registry);
            Counter toStore = Counter.builder("slidegate.failmode.transitions").description("Switches between the store and the fail modes")
                    .tag("to", "store").register(registry);
            fallback.onError(e -> errors.increment());
            fallback.breaker().onTransition(s -> (s == Breaker.State.OPEN ? toFailMode : toStore).increment());
        }
        return new MeteredStore(store, registry);
    }

    @Produces
    @Singleton
    LimiterStore store(SlidegateConfig config, Clock clock, @ConfigProperty(name = "quarkus.redis.hosts") Optional<String> hosts,
            @ConfigProperty(name = "quarkus.redis.client-type") Optional<String> clientType,
            @ConfigProperty(name = "quarkus.redis.password") Optional<String> password,
            Instance<ReactiveRedisDataSource> redis, Instance<io.vertx.mutiny.core.Vertx> vertx, Instance<MeterRegistry> metrics) {
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
                    throw new ConfigurationException("Invalid Slidegate configuration: slidegate.store=redis needs quarkus.redis.hosts, "
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
        LimiterStore store = useRedis
                ? new FallbackStore(new RedisStore(redis.get(), config.redis().timeout(), cluster
                        ? new ClusterNodes(redis.get(), vertx.get(), ClusterNodes.optionsLike(hosts.get().split(",")[0], password.orElse(null)))
                        : RedisNodes.single(redis.get())), new MemoryStore(clock, config.memory().maxKeys()),
                        config.fallback().instances(), new Breaker("Redis", config.redis().failureThreshold(),
                                config.redis().coolDown().toNanos(), System::nanoTime))
                : new MemoryStore(clock, config.memory().maxKeys());
        if (metrics.isResolvable()) {
            store = metered(store, metrics.get());
        }
        if (useRedis && cluster) {
            why += "; Redis Cluster (quarkus.redis.client-type=cluster)";
        }
        LOG.infof("Slidegate store: %s (%s)%s", store.name(), why, config.enabled() ? "" : "; limits are OFF (slidegate.enabled=false)");
        if (useRedis) {
            try { // connect now, so the first request is not the one that pays for it
                redis.get().execute("PING").await().atMost(java.time.Duration.ofSeconds(2));
            } catch (RuntimeException e) {
                LOG.warnf("Redis (%s) does not answer at start-up (%s): policies decide by their fail mode until it does",
                        Secrets.redact(hosts.get()), Secrets.redact(e.getMessage()));
            }
        }
        return store;
    }
}
