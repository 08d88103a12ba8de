package dev.slidegate.testing;

import java.util.Map;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/** Starts a real redis-server for a {@code @QuarkusTest} profile and points {@code quarkus.redis.hosts} at it. */
public class RedisTestResource implements QuarkusTestResourceLifecycleManager {

    private static volatile RedisServer server;

    @Override
    public Map<String, String> start() {
        server = RedisServer.start();
        return Map.of("quarkus.redis.hosts", server.uri());
    }

    /** The server of the running test profile. */
    public static RedisServer server() {
        return server;
    }

    /**
     * Empties the profile's Redis behind the application's back, and makes the application forget the refusals it
     * remembered from it (it would notice within 100 ms; the next test should not wait for that).
     */
    public static void flushAll(dev.slidegate.config.StoreStack stack) {
        try (Resp r = server.connect()) {
            r.call("FLUSHALL");
        }
        stack.refusals().ifPresent(dev.slidegate.redis.RefusalCache::forgetAll);
        stack.hotKeys().ifPresent(dev.slidegate.core.HotKeys::forgetAll); // as a wipe seen by the resets' poll does
    }

    @Override
    public void stop() {
        if (server != null) {
            server.close();
        }
    }
}
