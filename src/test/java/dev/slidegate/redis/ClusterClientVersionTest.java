package dev.slidegate.redis;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The Redis Cluster client before 4.5.27 deadlocks when every pooled connection waits for a slot-map
 * refresh (vert-x3/vertx-redis-client#549; RedisClusterApiTest failed 5 runs in 10 with it): the pom
 * pins 4.5.27, and a service on an older client is warned at start-up.
 */
class ClusterClientVersionTest {

    @Test
    void theClientOnTheClassPathIsOneWithoutTheDeadlock() {
        String version = io.vertx.redis.client.Redis.class.getPackage().getImplementationVersion();
        assertNotNull(version, "the client jar names its version");
        assertFalse(ClusterNodes.clientMayDeadlock(version), "vertx-redis-client " + version + " is before 4.5.27");
    }

    @Test
    void versionsBefore4527AreKnownToDeadlock() {
        assertTrue(ClusterNodes.clientMayDeadlock("4.5.26"));
        assertTrue(ClusterNodes.clientMayDeadlock("4.4.9"));
        assertTrue(ClusterNodes.clientMayDeadlock("3.9.16"));
        assertFalse(ClusterNodes.clientMayDeadlock("4.5.27"));
        assertFalse(ClusterNodes.clientMayDeadlock("4.5.28-SNAPSHOT"));
        assertFalse(ClusterNodes.clientMayDeadlock("5.0.9"));
        assertFalse(ClusterNodes.clientMayDeadlock(null), "unknown (a native executable): no warning");
        assertFalse(ClusterNodes.clientMayDeadlock("custom"));
    }
}
