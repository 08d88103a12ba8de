package dev.slidegate.demo;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

import dev.slidegate.api.RateLimited;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;

/**
 * An OpenAI-compatible provider the demo's chat relays to when {@code quarkus.rest-client.model.url} names one (OpenAI,
 * or a local server that speaks its API): its calls are paced by {@code model-requests} (calls) and {@code model-tokens}
 * (tokens as the provider counts them when a request arrives: its size / 4 plus its {@code max_tokens}), one quota for
 * the client on every instance, each learning the provider's own quota from its {@code x-ratelimit-*} answers.
 */
@RegisterRestClient(configKey = "model")
@Path("/v1/chat/completions")
public interface ModelClient {

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    @RateLimited("model-requests")
    @RateLimited("model-tokens")
    Uni<String> complete(String request, @HeaderParam("Authorization") String authorization);

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @org.jboss.resteasy.reactive.RestStreamElementType(MediaType.APPLICATION_JSON)
    @RateLimited("model-requests")
    @RateLimited("model-tokens")
    Multi<String> stream(String request, @HeaderParam("Authorization") String authorization);
}
