package dev.slidegate.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Slidegate's configuration, everything under {@code slidegate.}. Values that need more than a type
 * check (limits, strategies, key sources) are validated at start-up by {@link PolicyRegistry}, whose
 * messages name the property, the value and what would be valid.
 */
@ConfigMapping(prefix = "slidegate")
public interface SlidegateConfig {

    /** {@code false} switches every limit off: endpoints run unlimited and send no RateLimit fields. */
    @WithDefault("true")
    boolean enabled();

    /**
     * Where windows are kept: {@code memory} (this process only), {@code redis} (shared by every
     * instance), or {@code auto}: redis when {@code quarkus.redis.hosts} is set, memory otherwise.
     */
    @WithDefault("auto")
    String store();

    /** Named policies, by name: {@code slidegate.policies.<name>.*}. */
    Map<String, PolicyConfig> policies();

    /** The in-process store. */
    MemoryConfig memory();

    /** The Redis store. */
    RedisConfig redis();

    /** One named policy. Every property overrides the same member of an {@code @RateLimited} naming this policy. */
    interface PolicyConfig {

        /** Comma-separated limits, all checked together: {@code 500/2s,2000/10s}. Units ms, s, m, h, d. */
        Optional<List<String>> limits();

        /** {@code sliding-log} (exact; the default) or {@code fixed-window}. */
        Optional<String> strategy();

        /** Whose calls are counted together: {@code ip}, {@code user}, {@code global} or {@code header:<Name>}. Default {@code ip}. */
        Optional<String> key();

        /** {@code true}: refused attempts are charged too, so a caller who keeps trying stays locked out (brute-force protection). Default {@code false}. */
        @WithName("count-rejected")
        Optional<Boolean> countRejected();
    }

    /** The in-process store. */
    interface MemoryConfig {

        /**
         * The most (policy, key) pairs kept. Beyond it idle keys are dropped first, then the least
         * recently used (whose windows then restart empty; a warning says so).
         */
        @WithName("max-keys")
        @WithDefault("100000")
        int maxKeys();
    }

    /** The Redis store; the connection itself is Quarkus' {@code quarkus.redis.*}. */
    interface RedisConfig {

        /** The longest a decision may wait for Redis; past it the request fails with 503 rather than hang. */
        @WithDefault("1s")
        Duration timeout();
    }
}
