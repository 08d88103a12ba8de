package dev.slidegate.client;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.rest.client.inject.RestClient;

import dev.slidegate.api.RateLimited;
import io.smallrye.common.annotation.Blocking;

/**
 * An endpoint that proxies an LLM provider through {@link LlmClient}: its own policy (per API key, an estimate of 500
 * tokens a call) is settled with the usage the provider's answer reported, read by the client.
 */
@Path("/test/llm-proxy")
public class LlmProxy {

    @RestClient
    LlmClient client;

    @GET
    @Path("{provider}")
    @Blocking
    @Produces(MediaType.APPLICATION_JSON)
    @RateLimited("llm-proxy")
    public String complete(@PathParam("provider") String provider, @QueryParam("in") int in, @QueryParam("out") int out) {
        return client.complete(provider, in, out);
    }

    /** Two calls of the provider for one request (a tool loop): the proxy is charged both answers. */
    @GET
    @Path("{provider}/twice")
    @Blocking
    @Produces(MediaType.APPLICATION_JSON)
    @RateLimited("llm-proxy")
    public String twice(@PathParam("provider") String provider, @QueryParam("in") int in, @QueryParam("out") int out) {
        client.complete(provider, in, out);
        return client.complete(provider, in, out);
    }

    /** The provider's stream, read to its end, its events' data one per line. */
    @GET
    @Path("{provider}/stream")
    @Blocking
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimited("llm-proxy")
    public String stream(@PathParam("provider") String provider, @QueryParam("in") int in, @QueryParam("out") int out) {
        return String.join("\n", client.stream(provider, in, out).collect().asList().await()
                .atMost(java.time.Duration.ofSeconds(10)));
    }

    /** The provider's stream relayed as it comes, event by event. */
    @GET
    @Path("{provider}/relay")
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @org.jboss.resteasy.reactive.RestStreamElementType(MediaType.APPLICATION_JSON)
    @RateLimited("llm-proxy")
    public io.smallrye.mutiny.Multi<String> relay(@PathParam("provider") String provider, @QueryParam("in") int in,
            @QueryParam("out") int out) {
        return client.stream(provider, in, out);
    }
}
