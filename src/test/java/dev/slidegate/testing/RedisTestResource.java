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

    @Override
    public void stop() {
        if (server != null) {
            server.close();
        }
    }
}
