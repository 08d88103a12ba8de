package dev.slidegate.demo;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;

import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

import dev.slidegate.api.RateLimited;
import io.smallrye.mutiny.Uni;

/**
 * The partner API the demo buys quotes from, which limits this service (issue 39): its calls are paced by the
 * {@code quotes} policy, keyed by the client (one quota for the partner, shared by every instance on Redis). A call
 * waits for its permit up to the policy's {@code max-wait}; what the partner answers (its RateLimit fields, a 429 and
 * its Retry-After) holds or slows every instance's calls. Its address: {@code quarkus.rest-client.quotes.url}.
 */
@RegisterRestClient(configKey = "quotes")
@Path("/quotes")
@RateLimited("quotes")
public interface QuotesClient {

    @GET
    @Path("{symbol}")
    Uni<String> quote(@PathParam("symbol") String symbol);
}
