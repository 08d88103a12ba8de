package dev.slidegate.config;

import jakarta.enterprise.inject.Instance;

import dev.slidegate.core.Clock;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The Redis half of {@link StoreProducer}, present only when the service has {@code quarkus-redis-client}
 * ({@link OptionalParts} adds its one implementation then): the rest of Slidegate never names a class of the
 * Redis client, so a service without it builds, starts and limits in process, on the JVM and natively.
 */
public interface RedisStacks {

    /** The store stack on Redis: {@code Metered(Fallback(Refusals(Redis), Memory, Breaker))}. */
    StoreStack stack(SlidegateConfig config, RedisClientSettings client, Clock clock, Instance<MeterRegistry> metrics);

    /** Connects and loads the scripts, so that the first requests do not pay for it; says in the log what is wrong. */
    void warmUp(StoreStack stack, RedisClientSettings client);
}
