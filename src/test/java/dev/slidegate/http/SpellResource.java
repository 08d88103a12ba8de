package dev.slidegate.http;

import java.util.concurrent.atomic.AtomicInteger;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;

/**
 * Two endpoints limited by path policies only ({@code PathPoliciesTest}), each counting its own runs: the oracle of
 * whether a spelling of a path reached it, whatever the limiter says.
 */
@Path("/test/spell")
public class SpellResource {

    static final AtomicInteger LIST = new AtomicInteger();
    static final AtomicInteger ITEM = new AtomicInteger();

    @GET
    public String list() {
        LIST.incrementAndGet();
        return "list";
    }

    @GET
    @Path("{id}")
    public String item(@PathParam("id") String id) {
        ITEM.incrementAndGet();
        return "item";
    }
}
