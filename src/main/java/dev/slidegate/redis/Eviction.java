package dev.slidegate.redis;

import java.time.Duration;

import io.quarkus.redis.datasource.ReactiveRedisDataSource;
import io.vertx.mutiny.redis.client.Response;

/** What Redis does at {@code maxmemory}, read once at start-up to warn about policies that drop windows. */
public final class Eviction {

    private Eviction() {
    }

    /**
     * The server's {@code maxmemory-policy}, or {@code null} when it cannot be read (a managed Redis may
     * forbid {@code CONFIG}).
     */
    public static String policy(ReactiveRedisDataSource redis, Duration atMost) {
        try {
            Response r = redis.execute("CONFIG", "GET", "maxmemory-policy").await().atMost(atMost);
            if (r == null) {
                return null;
            }
            Response value = r.getDelegate().isMap() ? r.get("maxmemory-policy") : r.size() == 2 ? r.get(1) : null;
            return value == null ? null : value.toString();
        } catch (RuntimeException e) {
            return null;
        }
    }

    /**
     * Whether Redis, at {@code maxmemory}, may drop a window that still counts: every policy but
     * {@code noeviction} (writes then fail, and the fail mode decides) and {@code volatile-ttl} (drops
     * the keys nearest their expiry first: windows about to end, which lose the least). Every window has
     * an expiry, so the {@code volatile-*} policies reach them as the {@code allkeys-*} ones do.
     */
    public static boolean dropsWindows(String policy) {
        return policy != null && !policy.equals("noeviction") && !policy.equals("volatile-ttl");
    }
}
