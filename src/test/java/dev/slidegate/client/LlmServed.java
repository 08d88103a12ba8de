package dev.slidegate.client;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.jboss.resteasy.reactive.RestStreamElementType;

import dev.slidegate.api.RateLimited;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;

/**
 * A service that serves an LLM API itself (a model of its own behind OpenAI's and Anthropic's formats): its policy
 * ({@code %test.slidegate.policies.llm-served.usage-from=answer}, per API key, an estimate of 500 tokens a call) is settled
 * with the usage its own answers report, read from what the endpoint returns, whole or streamed.
 */
@Path("/test/llm-served")
public class LlmServed {

    @GET
    @Path("openai")
    @Produces(MediaType.APPLICATION_JSON)
    @RateLimited("llm-served")
    public String openai(@QueryParam("in") int in, @QueryParam("out") int out) {
        return LlmStandIn.openai(in, out);
    }

    @GET
    @Path("anthropic")
    @Produces(MediaType.APPLICATION_JSON)
    @RateLimited("llm-served")
    public Uni<Response> anthropic(@QueryParam("in") int in, @QueryParam("out") int out) {
        return Uni.createFrom().item(Response.ok(LlmStandIn.anthropic(in, out).getBytes()).build());
    }

    @GET
    @Path("openai-stream")
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @RestStreamElementType(MediaType.APPLICATION_JSON)
    @RateLimited("llm-served")
    public Multi<String> openaiStream(@QueryParam("in") int in, @QueryParam("out") int out) {
        return Multi.createFrom().iterable(LlmStandIn.openaiChunks(in, out));
    }

    /** OpenAI's stream, for one test alone: the first call of a streamed endpoint. */
    @GET
    @Path("first-stream")
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @org.jboss.resteasy.reactive.RestStreamElementType(MediaType.APPLICATION_JSON)
    @RateLimited("llm-served")
    public Multi<String> firstStream(@QueryParam("in") int in, @QueryParam("out") int out) {
        return Multi.createFrom().iterable(LlmStandIn.openaiChunks(in, out));
    }

    /**
     * A stream keyed by an argument, so the interceptor decides it; on a worker thread, before the stream is returned:
     * one call a minute per key.
     */
    @GET
    @io.smallrye.common.annotation.Blocking
    @Path("keyed-stream/{who}")
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @org.jboss.resteasy.reactive.RestStreamElementType(MediaType.APPLICATION_JSON)
    @RateLimited(value = "keyed-stream", limits = "1/1m")
    public Multi<String> keyedStream(@dev.slidegate.api.RateLimitKey @jakarta.ws.rs.PathParam("who") String who) {
        return Multi.createFrom().iterable(LlmStandIn.openaiChunks(1, 1));
    }

    /** Anthropic's stream as the raw bytes of its {@code text/event-stream}, cut into pieces that split lines and JSON. */
    @GET
    @Path("anthropic-raw")
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimited("llm-served")
    public Multi<byte[]> anthropicRaw(@QueryParam("in") int in, @QueryParam("out") int out) {
        return Multi.createFrom().iterable(pieces(in, out, Integer.MAX_VALUE));
    }

    /**
     * As {@link #anthropicRaw}, but the model's connection is lost in the middle of {@code message_delta}'s usage, after
     * the first digit of its output count: the answer is cut there.
     */
    @GET
    @Path("anthropic-cut")
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimited("llm-served")
    public Multi<byte[]> anthropicCut(@QueryParam("in") int in, @QueryParam("out") int out) {
        String sse = sse(in, out);
        int cut = sse.indexOf("\"output_tokens\":" + out) + "\"output_tokens\":".length() + 1;
        return Multi.createFrom().iterable(pieces(in, out, cut))
                .onCompletion().failWith(() -> new IllegalStateException("the model's connection was lost"));
    }

    private static String sse(int in, int out) {
        StringBuilder sse = new StringBuilder();
        for (String data : LlmStandIn.anthropicEvents(in, out)) {
            sse.append("event: x\r\ndata: ").append(data).append("\r\n\r\n");
        }
        return sse.toString();
    }

    /** The stream's first {@code upTo} bytes in pieces of 7 that split lines and JSON. */
    private static java.util.List<byte[]> pieces(int in, int out, int upTo) {
        byte[] all = sse(in, out).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        int end = Math.min(all.length, upTo);
        java.util.List<byte[]> pieces = new java.util.ArrayList<>();
        for (int i = 0; i < end; i += 7) {
            pieces.add(java.util.Arrays.copyOfRange(all, i, Math.min(end, i + 7)));
        }
        return pieces;
    }

    /**
     * An answer counted three ways ({@code llm-parts}): all its tokens, its input tokens alone ({@code input-limits}) and
     * its output tokens alone ({@code output-limits=1000/1m}), each estimated at 500.
     */
    @GET
    @Path("parts")
    @Produces(MediaType.APPLICATION_JSON)
    @RateLimited("llm-parts")
    public String parts(@QueryParam("in") int in, @QueryParam("out") int out) {
        return LlmStandIn.openai(in, out);
    }

    @org.eclipse.microprofile.rest.client.inject.RestClient
    LlmClient client;

    /** The provider's answer, got through a REST client that read its usage, relayed as this endpoint's own answer. */
    @GET
    @Path("relayed")
    @io.smallrye.common.annotation.Blocking
    @Produces(MediaType.APPLICATION_JSON)
    @RateLimited("llm-served")
    public String relayed(@QueryParam("in") int in, @QueryParam("out") int out) {
        return client.complete("openai", in, out);
    }

    @org.eclipse.microprofile.rest.client.inject.RestClient
    LibraryLlmClient library;

    /**
     * What a service built on an LLM library answers: the model's text alone, got through the library's own REST client,
     * which no policy paces; its answer's usage is read because this endpoint's policy reads answers.
     */
    @GET
    @Path("library")
    @io.smallrye.common.annotation.Blocking
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimited("llm-served")
    public String library(@QueryParam("in") int in, @QueryParam("out") int out) {
        io.vertx.core.json.JsonObject answer = new io.vertx.core.json.JsonObject(library.complete("anthropic", in, out));
        return answer.getJsonArray("content").getJsonObject(0).getString("text");
    }

    /** The same, streamed: the library's client reads typed chunks of a stream of events; the endpoint answers the text. */
    @GET
    @Path("library-stream")
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimited("llm-served")
    public Uni<String> libraryStream(@QueryParam("in") int in, @QueryParam("out") int out) {
        return library.stream(in, out).map(chunk -> {
            io.vertx.core.json.JsonArray choices = new io.vertx.core.json.JsonObject(chunk).getJsonArray("choices");
            return choices.isEmpty() ? "" : choices.getJsonObject(0).getJsonObject("delta").getString("content");
        }).collect().with(java.util.stream.Collectors.joining());
    }

    /** An answer whose usage lies: negative input, fractional output. */
    @GET
    @Path("lying")
    @Produces(MediaType.APPLICATION_JSON)
    @RateLimited("llm-served")
    public String lying() {
        return "{\"usage\":{\"prompt_tokens\":-900,\"completion_tokens\":2.5}}";
    }
}
