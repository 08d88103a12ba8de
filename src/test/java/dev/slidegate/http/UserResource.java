package dev.slidegate.http;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

import dev.slidegate.api.RateLimited;

/** A test endpoint limited per authenticated user. */
@Path("/test/user")
public class UserResource {

    @GET
    @RateLimited(value = "per-user", limits = "2/1h", key = "user")
    public String hello() {
        return "hello";
    }
}
