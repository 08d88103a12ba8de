package dev.slidegate.testing;

import java.util.Map;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/** Starts a real 3-master, 3-replica {@link RedisCluster} for a {@code @QuarkusTest} profile, with the cluster client. */
public class RedisClusterTestResource implements QuarkusTestResourceLifecycleManager {

    private static volatile RedisCluster cluster;

    @Override
    public Map<String, String> start() {
        cluster = RedisCluster.start();
        return Map.of("quarkus.redis.hosts", cluster.hosts(), "quarkus.redis.client-type", "cluster", "slidegate.store",
                "redis");
    }

    /** The cluster of the running test profile. */
    public static RedisCluster cluster() {
        return cluster;
    }

    @Override
    public void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }
}
