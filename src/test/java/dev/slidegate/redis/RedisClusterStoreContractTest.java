package dev.slidegate.redis;

import dev.slidegate.testing.RedisClients;
import dev.slidegate.testing.RedisCluster;

/**
 * The shared scenarios, every strategy, through the cluster client ({@code quarkus.redis.client-type=cluster})
 * against a real 3-master, 3-replica Redis Cluster: every key of one decision shares a slot, and
 * listings and counts cover all masters.
 */
// one scenario at a time (the others run side by side): run concurrently, under the load of a suite on PATH without
// redis-server (Redis 6.2 cluster), agreesWithTheReferenceOnRandomTimelines once saw Redis count 2 entries of a sliding
// log fewer than the reference (2026-11-26, session 23; not reproduced in 2 runs of the class alone), being investigated
@org.junit.jupiter.api.parallel.Execution(org.junit.jupiter.api.parallel.ExecutionMode.SAME_THREAD)
class RedisClusterStoreContractTest extends RedisContract {

    RedisClusterStoreContractTest() {
        super(RedisClusterStoreContractTest::start);
    }

    private static Parts start() {
        RedisCluster cluster = RedisCluster.start();
        return new Parts(cluster.nodes().get(0), cluster, new RedisClients(cluster));
    }
}
