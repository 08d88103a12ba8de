package example;

import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;

import io.quarkus.redis.datasource.RedisDataSource;

/** The service's own use of Redis: its default client, with its own pool and health settings. */
@Path("/cache")
public class HostCache {

    /** Looked up when used: the service runs its tests without a Redis too (its client is then inactive). */
    @Inject
    Instance<RedisDataSource> redis;

    @GET
    @Path("{key}")
    public String roundTrip(@PathParam("key") String key) {
        redis.get().value(String.class).set("host:" + key, "cached " + key);
        return redis.get().value(String.class).get("host:" + key);
    }
}
