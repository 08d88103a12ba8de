package dev.slidegate.config;

import java.time.Duration;

import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import dev.slidegate.core.Clock;
import dev.slidegate.core.DecisionStore;
import dev.slidegate.memory.MemoryStore;
import dev.slidegate.metrics.MeteredStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.arc.DefaultBean;
import io.quarkus.runtime.configuration.ConfigurationException;

/** Produces the {@link LimiterStore} chosen by {@code slidegate.store}, and the clock of in-process stores. */
@Singleton
public class StoreProducer {

    private static final Logger LOG = Logger.getLogger("dev.slidegate");

    /** How often each instance looks for resets made elsewhere (see {@code RefusalCache}). */
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
     * Closes what the stack owns (the instance registry's entry and timer, the Redis store's deadline thread, cluster clients).
     */
    void close(@Disposes StoreStack stack) {
        stack.close();
    }

    /** The store every decision goes to: the top of the {@link StoreStack}'s decisions. */
    @Produces
    @Singleton
    DecisionStore store(StoreStack stack) {
        return stack.decisions();
    }

    /** Where the shared store's clock falls on this instance's: where a held call's permit lies. */
    @Produces
    @Singleton
    dev.slidegate.core.PermitInstants instants(StoreStack stack) {
        return stack.instants();
    }

    /** The store stack chosen by {@code slidegate.store}, assembled here and nowhere else. */
    @Produces
    @Singleton
    StoreStack stack(SlidegateConfig config, Clock clock, Instance<RedisStacks> redis, Instance<MeterRegistry> metrics) {
        // the store is built while Quarkus starts, before any start-up observer runs (SettingsCheckOnStart
        // covers a service that builds none): check the settings it is built from first
        org.eclipse.microprofile.config.Config settings = org.eclipse.microprofile.config.ConfigProvider.getConfig();
        SettingsCheck.checkOnce(settings, config);
        RedisClientSettings client = RedisClientSettings.of(config.redis().client(), settings);
        boolean redisConfigured = client.hosts().isPresent();
        String why;
        boolean useRedis;
        switch (config.store()) {
            case MEMORY -> {
                useRedis = false;
                why = "slidegate.store=memory";
            }
            case REDIS -> {
                if (!redis.isResolvable()) {
                    throw new ConfigurationException("Invalid Slidegate configuration: slidegate.store=redis needs the Quarkus "
                            + "Redis client: add the dependency io.quarkus:quarkus-redis-client to the service");
                }
                if (!redisConfigured) {
                    throw new ConfigurationException("Invalid Slidegate configuration: slidegate.store=redis needs "
                            + client.property("hosts") + " (the hosts of the Redis client slidegate.redis.client="
                            + config.redis().client() + "), e.g. " + client.property("hosts") + "=redis://localhost:6379");
                }
                useRedis = true;
                why = "slidegate.store=redis";
            }
            case AUTO -> {
                useRedis = redisConfigured && redis.isResolvable();
                why = "slidegate.store=auto and " + client.property("hosts") + " is " + (redisConfigured ? "set" : "not set")
                        + (redisConfigured && !redis.isResolvable() ? ", but the service has no quarkus-redis-client" : "");
            }
            default -> throw new IllegalStateException("unknown store kind " + config.store());
        }
        StoreStack stack;
        RedisStacks onRedis = useRedis ? redis.get() : null;
        if (useRedis) {
            stack = onRedis.stack(config, client, clock, metrics);
            if (client.cluster()) {
                why += "; Redis Cluster (" + client.property("client-type") + "=cluster)";
            }
        } else {
            MemoryStore store = new MemoryStore(clock, config.memory().maxKeys());
            stack = StoreStack.inProcess(new dev.slidegate.core.SlotWaits(
                    metrics.isResolvable() ? new MeteredStore(store, metrics.get(), clock::nanoTime) : store, clock::nanoTime),
                    store, clock);
        }
        stack = stack.occupyingLate(config.waits().lateTolerance().toNanos() / 1000); // issue 56: N in any W by the run clock
        LOG.infof("Slidegate store: %s (%s)%s", stack.decisions().name(), why,
                config.enabled() ? "" : "; limits are OFF (slidegate.enabled=false)");
        if (useRedis) {
            onRedis.warmUp(stack, client);
        }
        return stack;
    }
}
