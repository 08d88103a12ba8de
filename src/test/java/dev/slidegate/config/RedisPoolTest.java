package dev.slidegate.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.slidegate.testing.TestConfigs;
import io.vertx.redis.client.RedisOptions;

/** Slidegate's pool sizes reach its own Redis client only, and never one the service sized itself. */
class RedisPoolTest {

    private static RedisOptions customized(String client, Map<String, String> config) {
        RedisOptions options = new RedisOptions().setMaxPoolSize(6).setMaxPoolWaiting(24);
        RedisPool.customize(client, options, TestConfigs.config(config));
        return options;
    }

    @Test
    void slidegatesOwnClientGetsItsPool() {
        RedisOptions own = customized("slidegate", Map.of());
        assertEquals(RedisPool.MAX_POOL_SIZE, own.getMaxPoolSize());
        assertEquals(RedisPool.MAX_POOL_WAITING, own.getMaxPoolWaiting());
        RedisOptions named = customized("limits", Map.of("slidegate.redis.client", "limits"));
        assertEquals(RedisPool.MAX_POOL_SIZE, named.getMaxPoolSize());
    }

    @Test
    void theServicesClientsAreLeftAsTheyAre() {
        // the service's default client, and any other client, whether or not Slidegate uses it
        for (String client : new String[] { "<default>", "cache" }) {
            RedisOptions options = customized(client, Map.of());
            assertEquals(6, options.getMaxPoolSize(), client);
            assertEquals(24, options.getMaxPoolWaiting(), client);
        }
        RedisOptions shared = customized("<default>", Map.of("slidegate.redis.client", "<default>"));
        assertEquals(6, shared.getMaxPoolSize(), "the default client stays the service's, even when Slidegate uses it");
        RedisOptions otherThanSlidegates = customized("slidegate", Map.of("slidegate.redis.client", "limits"));
        assertEquals(6, otherThanSlidegates.getMaxPoolSize(), "a client named slidegate that Slidegate does not use");
    }

    @Test
    void aPoolSizeTheServiceSetForSlidegatesClientWins() {
        RedisOptions options = new RedisOptions().setMaxPoolSize(50).setMaxPoolWaiting(100);
        RedisPool.customize("slidegate", options, TestConfigs.config(
                Map.of("quarkus.redis.slidegate.max-pool-size", "50", "quarkus.redis.slidegate.max-pool-waiting", "100")));
        assertEquals(50, options.getMaxPoolSize());
        assertEquals(100, options.getMaxPoolWaiting());
    }
}
