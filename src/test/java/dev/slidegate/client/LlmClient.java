package dev.slidegate.client;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.QueryParam;

import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

import dev.slidegate.api.RateLimited;

/**
 * A REST client of {@link LlmStandIn} whose policy settles each call with the usage the answer reports
 * ({@code %test.slidegate.policies.llm-client.usage-from=answer}), admitted against an estimate of 500 tokens.
 */
@RegisterRestClient(configKey = "llm-standin")
@Path("/test/llm")
@jakarta.ws.rs.Produces(jakarta.ws.rs.core.MediaType.APPLICATION_JSON)
public interface LlmClient {

    @GET
    @Path("{provider}")
    @RateLimited("llm-client")
    String complete(@jakarta.ws.rs.PathParam("provider") String provider, @QueryParam("in") int in,
            @QueryParam("out") int out);

    /** As {@link #complete}, called outside any request (its policy is its own, so its window is the test's alone). */
    @GET
    @Path("{provider}")
    @RateLimited("llm-offline")
    String completeOffline(@jakarta.ws.rs.PathParam("provider") String provider, @QueryParam("in") int in,
            @QueryParam("out") int out);

    /** A streamed answer: each event's data as it comes. */
    @GET
    @Path("{provider}-stream")
    @jakarta.ws.rs.Produces(jakarta.ws.rs.core.MediaType.SERVER_SENT_EVENTS)
    @RateLimited("llm-client")
    io.smallrye.mutiny.Multi<String> stream(@jakarta.ws.rs.PathParam("provider") String provider, @QueryParam("in") int in,
            @QueryParam("out") int out);
}
