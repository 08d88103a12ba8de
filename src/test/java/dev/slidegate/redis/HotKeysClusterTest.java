package dev.slidegate.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.slidegate.api.Limit;
import dev.slidegate.api.Policy;
import dev.slidegate.api.Strategy;
import dev.slidegate.testing.RedisClients;
import dev.slidegate.testing.RedisCluster;
import dev.slidegate.testing.RedisServer;
import dev.slidegate.testing.Resp;

/**
 * Hot keys on a real Redis Cluster (3 masters, 3 replicas): three instances flooding one key keep at most N in any window
 * by the callers' clocks while every master hands its slots to its replica ({@code CLUSTER FAILOVER}) mid-run, and an
 * instance stops half way through.
 */
@Timeout(120)
class HotKeysClusterTest {

    @Test
    void threeInstancesKeepTheBoundThroughAFailoverOfEveryMaster() throws Exception {
        try (RedisCluster cluster = RedisCluster.start()) {
            List<HotKeysTest.Instance> fleet = new java.util.ArrayList<>();
            for (int i = 0; i < 3; i++) {
                RedisClients own = new RedisClients(cluster);
                fleet.add(new HotKeysTest.Instance(own,
                        new RedisStore(own.dataSource(), own.nodes(), RedisStore.Options.of(Duration.ofSeconds(5))),
                        System::nanoTime, 3));
            }
            Policy p = new Policy("hot-cluster", List.of(Limit.parse("100/300ms")), Strategy.SLIDING_LOG, "ip", false);
            HotKeysTest.flood(fleet, p, 100, 300_000_000L, 2400, () -> {
                for (RedisServer master : List.copyOf(cluster.masters())) {
                    RedisServer replica = cluster.replicaOf(master);
                    try (Resp r = replica.connect()) {
                        assertEquals("OK", r.call("CLUSTER", "FAILOVER"));
                    }
                }
                cluster.awaitHealthy();
            });
        }
    }
}
