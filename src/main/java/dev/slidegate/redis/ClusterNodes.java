package dev.slidegate.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import io.quarkus.redis.datasource.ReactiveRedisDataSource;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.redis.client.Redis;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.RedisOptions;

/**
 * The masters of a Redis Cluster, as read from {@code CLUSTER SLOTS} on each call (so a failover is
 * followed), each reached by its own small standalone client, created once per address.
 *
 * <p>
 * Node clients connect with {@code nodeOptions.apply("host:port")}: the scheme, user and password
 * of the configured cluster hosts.
 */
public final class ClusterNodes implements RedisNodes, AutoCloseable {

    private final ReactiveRedisDataSource cluster;
    private final Vertx vertx;
    private final Function<String, RedisOptions> nodeOptions;
    private final Map<String, Redis> clients = new ConcurrentHashMap<>();

    public ClusterNodes(ReactiveRedisDataSource cluster, Vertx vertx, Function<String, RedisOptions> nodeOptions) {
        this.cluster = cluster;
        this.vertx = vertx;
        this.nodeOptions = nodeOptions;
    }

    @Override
    public boolean cluster() {
        return true;
    }

    @Override
    public Uni<List<Node>> masters() {
        return cluster.execute(Command.CLUSTER, "SLOTS").map(slots -> {
            TreeSet<String> addresses = new TreeSet<>();
            for (Response range : slots) {
                Response master = range.get(2);
                addresses.add(master.get(0).toString() + ":" + master.get(1).toLong());
            }
            List<Node> nodes = new ArrayList<>(addresses.size());
            for (String address : addresses) {
                Redis client = clients.computeIfAbsent(address, a -> Redis.createClient(vertx, nodeOptions.apply(a)));
                nodes.add((command, args) -> {
                    Request request = Request.cmd(io.vertx.mutiny.redis.client.Command.newInstance(command));
                    for (String a : args) {
                        request.arg(a);
                    }
                    return client.send(request);
                });
            }
            return nodes;
        });
    }

    /** Options for one node: the scheme and credentials of {@code hostUri}, at {@code address}. */
    public static Function<String, RedisOptions> optionsLike(String hostUri, String password) {
        java.net.URI uri = java.net.URI.create(hostUri.trim());
        String scheme = uri.getScheme() == null ? "redis" : uri.getScheme();
        String userInfo = uri.getRawUserInfo() == null ? "" : uri.getRawUserInfo() + "@";
        return address -> {
            RedisOptions o = new RedisOptions().setConnectionString(scheme + "://" + userInfo + address).setMaxPoolSize(2);
            if (password != null && !password.isEmpty()) {
                o.setPassword(password);
            }
            return o;
        };
    }

    /**
     * Whether a vertx-redis-client of this version (as its jar's manifest says; null when unknown, e.g.
     * in a native executable) has the cluster client that deadlocks when every pooled connection waits
     * for a slot-map refresh: 4.x before 4.5.27 (vert-x3/vertx-redis-client#549).
     */
    public static boolean clientMayDeadlock(String version) {
        if (version == null) {
            return false;
        }
        String[] parts = version.split("[.-]");
        try {
            int major = Integer.parseInt(parts[0]);
            int minor = parts.length > 1 ? Integer.parseInt(parts[1]) : 0;
            int patch = parts.length > 2 ? Integer.parseInt(parts[2]) : 0;
            return major < 4 || (major == 4 && (minor < 5 || (minor == 5 && patch < 27)));
        } catch (NumberFormatException e) {
            return false;
        }
    }

    @Override
    public void close() {
        clients.values().forEach(Redis::close);
        clients.clear();
    }
}
