package dev.slidegate.redis;

import dev.slidegate.testing.RedisClients;
import dev.slidegate.testing.RedisCluster;

/**
 * The shared scenarios, every strategy, through the cluster client ({@code quarkus.redis.client-type=cluster})
 * against a real 3-master, 3-replica Redis Cluster: every key of one decision shares a slot, and
 * listings and counts cover all masters.
 */
class RedisClusterStoreContractTest extends RedisContract {

    RedisClusterStoreContractTest() {
        super(RedisClusterStoreContractTest::start);
    }

    private static Parts start() {
        // no failover is tested here: Redis's default node timeout, so that a node the loaded machine starves for a second
        // is not replaced by a replica that lacks its last writes: the likeliest cause of the one divergence seen with 1 s (a
        // loaded suite, Redis counting 2 sliding-log entries fewer than the reference; not reproduced in 10 runs since)
        RedisCluster cluster = RedisCluster.start(java.time.Duration.ofSeconds(15));
        return new Parts(cluster.nodes().get(0), cluster, new RedisClients(cluster));
    }
}
