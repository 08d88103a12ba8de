package dev.slidegate.config;

import org.eclipse.microprofile.config.ConfigProvider;

import io.quarkus.redis.client.RedisOptionsCustomizer;
import io.vertx.redis.client.RedisOptions;

/**
 * The pool of Slidegate's own Redis client: every request of a limited endpoint makes one Redis call, and Quarkus'
 * defaults (6 connections, 24 waiting requests) would fail a burst of more than 30 at once. Applied to the client
 * {@code slidegate.redis.client} names only when that is a client of Slidegate's own (not the service's default
 * client), and only where the service set no pool size of its own for it. A bean only where the service has
 * {@code quarkus-redis-client} ({@link OptionalParts}).
 */
public class RedisPool implements RedisOptionsCustomizer {

    /** Connections of Slidegate's own client, unless {@code quarkus.redis.<client>.max-pool-size} says otherwise. */
    static final int MAX_POOL_SIZE = 32;
    /** Requests waiting for a connection, unless {@code quarkus.redis.<client>.max-pool-waiting} says otherwise. */
    static final int MAX_POOL_WAITING = 8192;

    @Override
    public void customize(String clientName, RedisOptions options) {
        customize(clientName, options, ConfigProvider.getConfig());
    }

    static void customize(String clientName, RedisOptions options, org.eclipse.microprofile.config.Config config) {
        RedisClientSettings own = RedisClientSettings.of(
                config.getOptionalValue("slidegate.redis.client", String.class).orElse(RedisClientSettings.OWN_CLIENT), config);
        if (own.isDefault() || !own.name().equals(clientName)) {
            return;
        }
        if (config.getOptionalValue(own.property("max-pool-size"), String.class).isEmpty()) {
            options.setMaxPoolSize(MAX_POOL_SIZE);
        }
        if (config.getOptionalValue(own.property("max-pool-waiting"), String.class).isEmpty()) {
            options.setMaxPoolWaiting(MAX_POOL_WAITING);
        }
    }
}
