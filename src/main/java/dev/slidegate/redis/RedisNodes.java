package dev.slidegate.redis;

import java.util.List;

import io.quarkus.redis.datasource.ReactiveRedisDataSource;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Response;
import io.vertx.redis.client.Command;

/**
 * The Redis servers that hold Slidegate's keys, for the commands that have no key and so cannot be
 * routed by the client: {@code SCAN} for the admin listing and counts. One server, or every master of
 * a Redis Cluster.
 */
public interface RedisNodes {

    /** One server's connection, able to run a keyless command there. */
    interface Node {
        Uni<Response> execute(Command command, String... args);
    }

    /** The servers holding keys, in a stable order (a listing cursor names a node by its position). */
    Uni<List<Node>> masters();

    /** Whether these are the masters of a Redis Cluster (whose client routes each request by key). */
    default boolean cluster() {
        return false;
    }

    /** A single Redis (standalone or behind a proxy): the data source itself. */
    static RedisNodes single(ReactiveRedisDataSource redis) {
        List<Node> one = List.of(redis::execute);
        return () -> Uni.createFrom().item(one);
    }
}
