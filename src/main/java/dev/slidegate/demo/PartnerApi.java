package dev.slidegate.demo;

import java.time.Instant;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * The demo's stand-in for the partner API behind {@link QuotesClient}: {@code GET /partner/quotes/{symbol}} grants
 * {@code demo.partner.limit} calls per fixed window of {@code demo.partner.window-seconds} (10 per 10 s) to all its
 * callers together, and says so in the IETF RateLimit fields; past that it answers 429 with {@code Retry-After}. A real
 * service points {@code quarkus.rest-client.quotes.url} at the real partner. Not rate-limited by Slidegate: it plays
 * the upstream.
 */
@Path("/partner/quotes")
public class PartnerApi {

    private final int limit;
    private final long windowMillis;
    private long window = -1;
    private int used;

    PartnerApi(DemoConfig config) {
        this.limit = Math.max(1, config.partner().limit());
        this.windowMillis = Math.max(1, config.partner().windowSeconds()) * 1000L;
    }

    @GET
    @Path("{symbol}")
    public Response quote(@PathParam("symbol") String symbol) {
        long now = System.currentTimeMillis();
        int left;
        boolean granted;
        synchronized (this) {
            if (now / windowMillis != window) {
                window = now / windowMillis;
                used = 0;
            }
            granted = used < limit;
            if (granted) {
                used++;
            }
            left = limit - used;
        }
        long reset = Math.max(1, ((now / windowMillis + 1) * windowMillis - now + 999) / 1000);
        Response.ResponseBuilder r = granted
                ? Response.ok("{\"symbol\":\"" + symbol.replaceAll("[^A-Za-z0-9.]", "") + "\",\"price\":"
                        + (100 + Math.abs(symbol.hashCode() % 900)) / 10.0 + ",\"at\":\"" + Instant.ofEpochMilli(now) + "\"}",
                        MediaType.APPLICATION_JSON_TYPE)
                : Response.status(429).header("Retry-After", reset);
        return r.header("RateLimit-Policy", "\"partner\";q=" + limit + ";w=" + windowMillis / 1000)
                .header("RateLimit", "\"partner\";r=" + left + ";t=" + reset).build();
    }
}
