package dev.slidegate.testing;

import dev.slidegate.redis.ClusterNodes;
import dev.slidegate.redis.RedisNodes;
import io.quarkus.redis.datasource.ReactiveRedisDataSource;
import io.quarkus.redis.runtime.datasource.ReactiveRedisDataSourceImpl;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.redis.client.Redis;
import io.vertx.mutiny.redis.client.RedisAPI;
import io.vertx.redis.client.RedisClientType;
import io.vertx.redis.client.RedisOptions;

/**
 * A Quarkus reactive Redis data source outside Quarkus, for store-level tests against a {@link RedisServer} or
 * {@link RedisCluster}.
 */
public final class RedisClients implements AutoCloseable {

    private final Vertx vertx = Vertx.vertx();
    private final Redis redis;
    private final ReactiveRedisDataSource dataSource;
    private final RedisNodes nodes;

    public RedisClients(RedisServer server) {
        this(server, 16);
    }

    /** A standalone client with {@code poolSize} connections (the service ships with 32). */
    public RedisClients(RedisServer server, int poolSize) {
        redis = Redis.createClient(vertx, options().setConnectionString(server.uri()).setMaxPoolSize(poolSize));
        dataSource = new ReactiveRedisDataSourceImpl(vertx, redis, RedisAPI.api(redis));
        nodes = RedisNodes.single(dataSource);
    }

    /**
     * A cluster client ({@code quarkus.redis.client-type=cluster}) and the masters for listings. Its topology cache lasts
     * 60 s, as docs/operations.md advises (Quarkus' 1 s default makes the decision that finds it expired wait ~80 ms for
     * {@code CLUSTER SLOTS} here, which the store contracts, running side by side, saw as late steps).
     */
    public RedisClients(RedisCluster cluster) {
        RedisOptions options = options().setType(RedisClientType.CLUSTER).setHashSlotCacheTTL(60_000);
        cluster.nodes().forEach(n -> options.addConnectionString(n.uri()));
        redis = Redis.createClient(vertx, options);
        dataSource = new ReactiveRedisDataSourceImpl(vertx, redis, RedisAPI.api(redis));
        nodes = new ClusterNodes(dataSource, vertx, ClusterNodes.optionsLike(cluster.uri(), null));
    }

    private static RedisOptions options() {
        return new RedisOptions().setMaxPoolSize(16).setMaxWaitingHandlers(4096).setMaxPoolWaiting(4096);
    }

    public ReactiveRedisDataSource dataSource() {
        return dataSource;
    }

    /** The Vert.x instance of the client, for running calls on its event loops. */
    public Vertx vertx() {
        return vertx;
    }

    public RedisNodes nodes() {
        return nodes;
    }

    @Override
    public void close() {
        if (nodes instanceof ClusterNodes c) {
            c.close();
        }
        redis.close();
        vertx.closeAndAwait();
    }
}
