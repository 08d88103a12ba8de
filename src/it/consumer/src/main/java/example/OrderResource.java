package example;

import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.core.Response;

import dev.slidegate.api.Decision;
import dev.slidegate.api.RateLimited;
import dev.slidegate.api.RateLimiter;

/**
 * A user's own endpoints: one with inline limits, one with a policy from this service's configuration,
 * one that asks the programmatic limiter itself.
 */
@Path("/orders")
public class OrderResource {

    @Inject
    RateLimiter limiter;

    @GET
    @Path("by/{tenant}")
    public Response byTenant(@PathParam("tenant") String tenant) {
        Decision d = limiter.acquireBlocking("orders", tenant);
        return d.allowed() ? Response.ok("tenant " + tenant).build() : Response.status(429).header("Retry-After", d.retryAfterSeconds()).build();
    }

    @GET
    @RateLimited(limits = "3/1m")          // per client address, in process (as the README prints it)
    public String list() { return "orders"; }

    @GET
    @Path("export")
    @RateLimited("orders")
    public String export() {
        return "export";
    }
}
