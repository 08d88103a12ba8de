package example;

import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.QueryParam;

import dev.slidegate.api.RateLimited;
import io.smallrye.common.annotation.Blocking;

/**
 * An endpoint built on quarkus-langchain4j that answers the model's text alone: its policy ({@code assistant-tokens},
 * {@code usage-from=answer}) is settled with the usage the provider's answer reported to the framework's client, with
 * no code of the service's for it.
 */
@Path("/assistant")
public class AssistantResource {

    @Inject
    Assistant assistant;

    @GET
    @Blocking
    @RateLimited("assistant-tokens")
    public String ask(@QueryParam("q") String q) {
        return assistant.chat(q);
    }

    /** The model's text as it streams, each piece an event of this endpoint's own stream. */
    @GET
    @Path("stream")
    @jakarta.ws.rs.Produces(jakarta.ws.rs.core.MediaType.SERVER_SENT_EVENTS)
    @RateLimited("assistant-tokens")
    public io.smallrye.mutiny.Multi<String> askStreamed(@QueryParam("q") String q) {
        return assistant.chatStreamed(q);
    }
}
