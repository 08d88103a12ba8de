package dev.slidegate.testing;

import io.quarkus.redis.datasource.ReactiveRedisDataSource;
import io.quarkus.redis.runtime.datasource.ReactiveRedisDataSourceImpl;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.redis.client.Redis;
import io.vertx.mutiny.redis.client.RedisAPI;
import io.vertx.redis.client.RedisOptions;

/** A Quarkus reactive Redis data source outside Quarkus, for store-level tests against a {@link RedisServer}. */
public final class RedisClients implements AutoCloseable {

    private final Vertx vertx = Vertx.vertx();
    private final Redis redis;
    private final ReactiveRedisDataSource dataSource;

    public RedisClients(RedisServer server) {
        redis = Redis.createClient(vertx, new RedisOptions().setConnectionString(server.uri()).setMaxPoolSize(16)
                .setMaxWaitingHandlers(4096).setMaxPoolWaiting(4096));
        dataSource = new ReactiveRedisDataSourceImpl(vertx, redis, RedisAPI.api(redis));
    }

    public ReactiveRedisDataSource dataSource() {
        return dataSource;
    }

    @Override
    public void close() {
        redis.close();
        vertx.closeAndAwait();
    }
}
