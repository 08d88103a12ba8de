package dev.slidegate.http;

import java.util.concurrent.atomic.AtomicInteger;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.core.MediaType;

import dev.slidegate.api.RateLimitKey;
import dev.slidegate.api.RateLimited;

/** Test endpoints for decisions made before an endpoint is dispatched. */
@Path("/test/early")
public class EarlyResource {

    /** Times each endpoint's body ran. */
    static final AtomicInteger JSON_CALLS = new AtomicInteger();
    static final AtomicInteger BLOCKING_CALLS = new AtomicInteger();

    /** A JSON body. */
    public record Order(String item, int quantity) {
    }

    @Inject
    Inner inner;

    @POST
    @Path("json")
    @Consumes(MediaType.APPLICATION_JSON)
    @RateLimited(value = "early-json", limits = "2/1h")
    public String order(Order order) {
        JSON_CALLS.incrementAndGet();
        return order.item();
    }

    @GET
    @Path("blocking")
    @RateLimited(value = "early-blocking", limits = "3/1h")
    public String blocking() {
        BLOCKING_CALLS.incrementAndGet();
        return "ok";
    }

    @GET
    @Path("arg/{id}")
    @RateLimited(value = "early-arg", limits = "1/1h")
    public String byArgument(@RateLimitKey @PathParam("id") String id) {
        return id;
    }

    @GET
    @Path("nested")
    @RateLimited(value = "early-outer", limits = "5/1h")
    public String nested() {
        return inner.call();
    }

    @GET
    @Path("two")
    @RateLimited(value = "early-two-ip", limits = "2/1h")
    @RateLimited(value = "early-two-tenant", limits = "5/1h", key = "header:X-Tenant")
    public String two() {
        return "two";
    }

    @GET
    @Path("secured")
    @jakarta.annotation.security.RolesAllowed("slidegate-admin")
    @RateLimited(value = "early-secured", limits = "1/1h")
    public String secured() {
        return "secret";
    }

    /** A limited bean method that an endpoint calls. */
    @ApplicationScoped
    public static class Inner {

        @RateLimited(value = "early-inner", limits = "1/1h", key = "global")
        public String call() {
            return "inner";
        }
    }
}
