package dev.slidegate.client;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

/**
 * A stand-in of two LLM providers, answering as their published formats say (OpenAI's chat completions, Anthropic's
 * messages), with the usage the test asks for; and an answer that reports none.
 */
@Path("/test/llm")
@Produces(MediaType.APPLICATION_JSON)
public class LlmStandIn {

    @GET
    @Path("openai")
    public String openai(@QueryParam("in") int in, @QueryParam("out") int out) {
        return "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":{\"role\":"
                + "\"assistant\",\"content\":\"Hello\"},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":" + in
                + ",\"completion_tokens\":" + out + ",\"total_tokens\":" + (in + out) + "}}";
    }

    @GET
    @Path("anthropic")
    public String anthropic(@QueryParam("in") int in, @QueryParam("out") int out) {
        return "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":"
                + "\"Hello\"}],\"stop_reason\":\"end_turn\",\"usage\":{\"input_tokens\":" + in + ",\"output_tokens\":" + out
                + "}}";
    }

    /** OpenAI's chat completions streamed with {@code stream_options.include_usage}: usage in the last chunk. */
    @GET
    @Path("openai-stream")
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @org.jboss.resteasy.reactive.RestStreamElementType(MediaType.APPLICATION_JSON)
    public io.smallrye.mutiny.Multi<String> openaiStream(@QueryParam("in") int in, @QueryParam("out") int out) {
        return io.smallrye.mutiny.Multi.createFrom().items(
                "{\"id\":\"c\",\"choices\":[{\"delta\":{\"content\":\"Hel\"}}],\"usage\":null}",
                "{\"id\":\"c\",\"choices\":[{\"delta\":{\"content\":\"lo\"}}],\"usage\":null}",
                "{\"id\":\"c\",\"choices\":[],\"usage\":{\"prompt_tokens\":" + in + ",\"completion_tokens\":" + out
                        + ",\"total_tokens\":" + (in + out) + "}}");
    }

    @GET
    @Path("none")
    public String none() {
        return "{\"id\":\"x\",\"choices\":[]}";
    }
}
