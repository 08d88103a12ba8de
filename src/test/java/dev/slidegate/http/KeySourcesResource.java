package dev.slidegate.http;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Named;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;

import dev.slidegate.api.KeyResolver;
import dev.slidegate.api.RateLimited;

/** Test endpoints for the key sources path, param:, composites and a custom KeyResolver. */
@Path("/test/keys")
public class KeySourcesResource {

    /** Keys callers by the X-Tenant-Id header, lower-cased; none when it is absent. */
    @ApplicationScoped
    @Named("tenant")
    public static class TenantKeys implements KeyResolver {
        @Override
        public String resolve(Call call) {
            String tenant = call.request() == null ? null : call.request().header("X-Tenant-Id");
            return tenant == null ? null : tenant.toLowerCase(java.util.Locale.ROOT);
        }
    }

    @GET
    @Path("items/{id}")
    @RateLimited(value = "per-route", limits = "2/1h", key = "ip+path")
    public String item(@PathParam("id") String id) {
        return id;
    }

    @GET
    @Path("other/{id}")
    @RateLimited(value = "per-route", limits = "2/1h", key = "ip+path")
    public String other(@PathParam("id") String id) {
        return id;
    }

    @GET
    @Path("by-param")
    @RateLimited(value = "per-param", limits = "2/1h", key = "param:tenant")
    public String byParam() {
        return "ok";
    }

    @GET
    @Path("by-tenant")
    @RateLimited(value = "per-tenant", limits = "2/1h", key = "tenant+header:X-Region")
    public String byTenant() {
        return "ok";
    }

    /** A policy whose answers name the caller's partition ({@code %test.slidegate.policies.partitioned.partition-key}). */
    @GET
    @Path("partitioned")
    @RateLimited(value = "partitioned", limits = "5/1h", key = "header:X-Api-Key")
    public String partitioned() {
        return "ok";
    }

    /** The client's address as Quarkus resolved it (quarkus.http.proxy.*), for QuarkusProxyTest. */
    @GET
    @Path("quarkus-remote-address")
    public String quarkusRemoteAddress(@jakarta.ws.rs.core.Context io.vertx.core.http.HttpServerRequest request) {
        return request.remoteAddress().hostAddress();
    }
}
