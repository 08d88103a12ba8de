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
        RedisCluster cluster = RedisCluster.start();
        return new Parts(cluster.nodes().get(0), cluster, new RedisClients(cluster));
    }
}
