package dev.slidegate.client;

import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Response;

/**
 * An upstream under test, in the test's own service: it answers {@code status} with each {@code h} ("Name: value") as a
 * header field, and records when each call reached it (its own clock: the oracle of what Slidegate let through).
 */
@Path("/test/upstream")
public class EchoUpstream {

    /** One call as the upstream saw it. */
    public record Arrival(long nanos, String tenant, int status) {
    }

    static final ConcurrentLinkedQueue<Arrival> ARRIVALS = new ConcurrentLinkedQueue<>();

    @GET
    @Path("echo")
    public Response echo(@QueryParam("status") int status, @QueryParam("h") List<String> headers,
            @QueryParam("tenant") String tenant) {
        ARRIVALS.add(new Arrival(System.nanoTime(), tenant, status == 0 ? 200 : status));
        Response.ResponseBuilder r = Response.status(status == 0 ? 200 : status).entity("ok");
        for (String h : headers) {
            int colon = h.indexOf(':');
            r.header(h.substring(0, colon).trim(), h.substring(colon + 1).trim());
        }
        return r.build();
    }

    /** The calls that reached the upstream for {@code tenant} ({@code null}: without one), in order. */
    static List<Arrival> of(String tenant) {
        return ARRIVALS.stream().filter(a -> java.util.Objects.equals(a.tenant(), tenant)).toList();
    }
}
