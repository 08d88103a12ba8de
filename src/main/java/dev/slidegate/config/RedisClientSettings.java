package dev.slidegate.config;

import java.util.Locale;
import java.util.Optional;

import org.eclipse.microprofile.config.Config;

/**
 * The Quarkus Redis client Slidegate keeps its windows in ({@code slidegate.redis.client}), and the few of its
 * settings Slidegate reads itself. {@value #DEFAULT_CLIENT} is the service's default client ({@code quarkus.redis.hosts});
 * any other name is a named client ({@code quarkus.redis.<name>.hosts}), by default {@value #OWN_CLIENT}, so that
 * Slidegate's connections, pool and health never mix with the service's own Redis unless the service says so.
 *
 * @param name the client's name, as in {@code slidegate.redis.client}
 * @param hosts the client's hosts, when set
 * @param cluster whether the client is a Redis Cluster client ({@code client-type=cluster})
 * @param password the client's password, when set apart from the hosts
 */
public record RedisClientSettings(String name, Optional<String> hosts, boolean cluster, Optional<String> password) {

    /** The name Quarkus gives the service's default Redis client. */
    public static final String DEFAULT_CLIENT = "<default>";

    /** The name of Slidegate's own client unless {@code slidegate.redis.client} says another. */
    public static final String OWN_CLIENT = "slidegate";

    /** The settings of the client {@code name}, read from {@code config}. */
    public static RedisClientSettings of(String name, Config config) {
        RedisClientSettings unread = new RedisClientSettings(name, Optional.empty(), false, Optional.empty());
        Optional<String> hosts = config.getOptionalValue(unread.property("hosts"), String.class).filter(h -> !h.isBlank());
        boolean cluster = config.getOptionalValue(unread.property("client-type"), String.class)
                .map(t -> t.trim().toLowerCase(Locale.ROOT).equals("cluster")).orElse(false);
        return new RedisClientSettings(name, hosts, cluster,
                config.getOptionalValue(unread.property("password"), String.class));
    }

    /** Whether this is the service's default client. */
    public boolean isDefault() {
        return DEFAULT_CLIENT.equals(name);
    }

    /** The full name of one of the client's Quarkus settings, e.g. {@code quarkus.redis.slidegate.hosts}. */
    public String property(String setting) {
        if (isDefault()) {
            return "quarkus.redis." + setting;
        }
        return "quarkus.redis." + SettingsCheck.quoted(name) + "." + setting;
    }
}
