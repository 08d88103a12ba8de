package dev.slidegate.client;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;

import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

/**
 * A REST client of {@link LlmStandIn} as an LLM library brings its own (quarkus-langchain4j's): no {@code @RateLimited}
 * paces it; its answers are read for a request whose policies read usage from answers.
 */
@RegisterRestClient(configKey = "llm-standin")
@Path("/test/llm")
@jakarta.ws.rs.Produces(jakarta.ws.rs.core.MediaType.APPLICATION_JSON)
public interface LibraryLlmClient {

    @GET
    @Path("{provider}")
    String complete(@PathParam("provider") String provider, @QueryParam("in") int in,
            @QueryParam("out") int out);

    /** OpenAI's stream, its events' data as the library reads them (quarkus-langchain4j reads them as its own types). */
    @GET
    @Path("openai-stream")
    @jakarta.ws.rs.Produces(jakarta.ws.rs.core.MediaType.SERVER_SENT_EVENTS)
    @org.jboss.resteasy.reactive.RestStreamElementType(jakarta.ws.rs.core.MediaType.APPLICATION_JSON)
    io.smallrye.mutiny.Multi<String> stream(@QueryParam("in") int in, @QueryParam("out") int out);
}
