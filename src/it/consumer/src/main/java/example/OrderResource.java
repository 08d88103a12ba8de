package example;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

import dev.slidegate.interceptor.RateLimited;

/** A user's own endpoints: one with inline limits, one with a policy from this service's configuration. */
@Path("/orders")
public class OrderResource {

    @GET
    @RateLimited(limits = "3/1m")
    public String list() {
        return "orders";
    }

    @GET
    @Path("export")
    @RateLimited("orders")
    public String export() {
        return "export";
    }
}
