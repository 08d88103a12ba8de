package dev.slidegate.http;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

import dev.slidegate.api.RateLimited;

/** Test endpoints for cost and dry-run. */
@Path("/test")
public class CostResource {

    @GET
    @Path("export")
    @RateLimited(value = "export", limits = "10/1h", cost = 5)
    public String export() {
        return "export";
    }

    @GET
    @Path("huge")
    @RateLimited(value = "huge", limits = "3/1h", cost = 5)
    public String huge() {
        return "never";
    }

    /** A completion of 40 tokens, under a budget counted in tokens (the profile's {@code unit}). */
    @GET
    @Path("completion")
    @RateLimited(value = "completions", limits = "100/1h", cost = 40)
    public String completion() {
        return "completion";
    }

    @GET
    @Path("trial")
    @RateLimited(value = "trial", limits = "2/1h", dryRun = RateLimited.Toggle.ON)
    public String trial() {
        return "trial";
    }
}
