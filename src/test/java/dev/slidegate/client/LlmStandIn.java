package dev.slidegate.client;

import java.util.List;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

import org.jboss.resteasy.reactive.RestStreamElementType;

import io.smallrye.mutiny.Multi;

/**
 * A stand-in of two LLM providers, answering as their published formats say (OpenAI's chat completions, Anthropic's
 * messages, whole and streamed), with the usage the test asks for; and answers that report none.
 */
@Path("/test/llm")
@Produces(MediaType.APPLICATION_JSON)
public class LlmStandIn {

    /** An OpenAI chat completion that used {@code in} and {@code out} tokens. */
    public static String openai(int in, int out) {
        return "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":{\"role\":"
                + "\"assistant\",\"content\":\"Hello\"},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":" + in
                + ",\"completion_tokens\":" + out + ",\"total_tokens\":" + (in + out) + "}}";
    }

    /** An Anthropic message that used {@code in} and {@code out} tokens. */
    public static String anthropic(int in, int out) {
        return "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":"
                + "\"Hello\"}],\"stop_reason\":\"end_turn\",\"usage\":{\"input_tokens\":" + in + ",\"output_tokens\":" + out
                + "}}";
    }

    /** The data of OpenAI's chat completion chunks, streamed with {@code stream_options.include_usage}: usage last. */
    public static List<String> openaiChunks(int in, int out) {
        return List.of("{\"id\":\"c\",\"choices\":[{\"delta\":{\"content\":\"Hel\"}}],\"usage\":null}",
                "{\"id\":\"c\",\"choices\":[{\"delta\":{\"content\":\"lo\"}}],\"usage\":null}",
                "{\"id\":\"c\",\"choices\":[],\"usage\":{\"prompt_tokens\":" + in + ",\"completion_tokens\":" + out
                        + ",\"total_tokens\":" + (in + out) + "}}");
    }

    /**
     * The data of Anthropic's message stream: {@code message_start} says the input (and a first output token),
     * {@code message_delta} the output so far, as running totals.
     */
    public static List<String> anthropicEvents(int in, int out) {
        return List.of(
                "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\","
                        + "\"content\":[],\"model\":\"claude\",\"usage\":{\"input_tokens\":" + in + ",\"output_tokens\":1}}}",
                "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}",
                "{\"type\":\"ping\"}",
                "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hello\"}}",
                "{\"type\":\"content_block_stop\",\"index\":0}",
                "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":" + out
                        + "}}",
                "{\"type\":\"message_stop\"}");
    }

    @GET
    @Path("openai")
    public String openaiAnswer(@QueryParam("in") int in, @QueryParam("out") int out) {
        return openai(in, out);
    }

    @GET
    @Path("anthropic")
    public String anthropicAnswer(@QueryParam("in") int in, @QueryParam("out") int out) {
        return anthropic(in, out);
    }

    @GET
    @Path("openai-stream")
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @RestStreamElementType(MediaType.APPLICATION_JSON)
    public Multi<String> openaiStream(@QueryParam("in") int in, @QueryParam("out") int out) {
        return Multi.createFrom().iterable(openaiChunks(in, out));
    }

    @GET
    @Path("anthropic-stream")
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @RestStreamElementType(MediaType.APPLICATION_JSON)
    public Multi<String> anthropicStream(@QueryParam("in") int in, @QueryParam("out") int out) {
        return Multi.createFrom().iterable(anthropicEvents(in, out));
    }

    /** A stream without a usage chunk (the request did not ask for one). */
    @GET
    @Path("none-stream")
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @RestStreamElementType(MediaType.APPLICATION_JSON)
    public Multi<String> noneStream() {
        return Multi.createFrom().iterable(openaiChunks(0, 0).subList(0, 2));
    }

    @GET
    @Path("none")
    public String none() {
        return "{\"id\":\"x\",\"choices\":[]}";
    }
}
