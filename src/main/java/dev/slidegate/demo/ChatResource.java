package dev.slidegate.demo;

import java.time.Duration;
import java.util.List;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;

import dev.slidegate.api.RateLimited;
import dev.slidegate.api.Usage;
import dev.slidegate.http.ProblemMappers;
import dev.slidegate.http.Problems;
import dev.slidegate.http.RateLimitApi;
import io.smallrye.mutiny.Uni;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * A chat endpoint that speaks OpenAI's chat completions (issue 60), answered by the demo's {@link FakeModel}: the
 * {@code chat-tokens} policy (a monthly budget per API key) and {@code chat-burst} (a sliding minute) admit a request
 * together against the estimate its body gives ({@code cost-resolver=llm-request}) and settle it with the usage its
 * answer reports ({@code usage-from=answer}), as they would for an endpoint that relays a provider's answer. The
 * endpoint itself counts nothing.
 */
@Path("/api/chat")
public class ChatResource {

    private final FakeModel model;
    private final Usage usage;
    private final ProblemMappers problems;

    ChatResource(FakeModel model, Usage usage, ProblemMappers problems) {
        this.model = model;
        this.usage = usage;
        this.problems = problems;
    }

    /**
     * A chat completion of the request's messages, as OpenAI answers one: {@code {"messages": [{"role": "user",
     * "content": "..."}], "max_tokens": 1..4000}} (200 by default), with the tokens it used in {@code usage}.
     */
    @POST
    @RateLimited("chat-tokens")
    @RateLimited("chat-burst")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    @APIResponse(responseCode = "200", description = "The chat completion, with its usage")
    @APIResponse(responseCode = "400", description = "No X-Api-Key, a body that is no chat request, or max_tokens outside 1 to 4000")
    @APIResponse(responseCode = "429", ref = RateLimitApi.TOO_MANY_REQUESTS)
    public Uni<String> chat(String request) {
        Chat chat = Chat.of(request);
        if (chat == null) {
            return badRequest();
        }
        return model.complete(chat.prompt(), chat.max(), Duration.ZERO).collect().asList()
                .map(tokens -> answer(tokens, chat.promptTokens()).encode());
    }

    /**
     * The same completion streamed, as OpenAI streams one to a client that asks for {@code text/event-stream}: a chunk per
     * token, then one with the usage ({@code stream_options.include_usage}), each an event's data. Read as it passes.
     */
    @POST
    @RateLimited("chat-tokens")
    @RateLimited("chat-burst")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @org.jboss.resteasy.reactive.RestStreamElementType(MediaType.APPLICATION_JSON)
    @APIResponse(responseCode = "200", description = "The chat completion's chunks, the last with its usage")
    @APIResponse(responseCode = "400", description = "No X-Api-Key, a body that is no chat request, or max_tokens outside 1 to 4000")
    @APIResponse(responseCode = "429", ref = RateLimitApi.TOO_MANY_REQUESTS)
    public io.smallrye.mutiny.Multi<String> chatStream(String request) {
        Chat chat = Chat.of(request);
        if (chat == null) {
            return badRequest().toMulti();
        }
        java.util.concurrent.atomic.AtomicInteger streamed = new java.util.concurrent.atomic.AtomicInteger();
        return model.complete(chat.prompt(), chat.max(), Duration.ofMillis(1))
                .map(token -> {
                    streamed.incrementAndGet();
                    return chunk(new JsonObject().put("delta", new JsonObject().put("content", token + " ")), null);
                })
                .onCompletion().continueWith(() -> List.of(chunk(null, usage(chat.promptTokens(), streamed.get()))));
    }

    /** A chat request as read: its messages' contents one after the other, and the most tokens it asks for. */
    private record Chat(String prompt, int max) {

        /** {@code request} read, or {@code null} for one that is no chat request, or asks for less than 1 or over 4 000. */
        static Chat of(String request) {
            JsonObject body;
            try {
                body = new JsonObject(request == null ? "" : request);
            } catch (RuntimeException notJson) {
                return null;
            }
            String prompt = ChatResource.prompt(body.getValue("messages"));
            Object most = body.getValue("max_tokens", 200);
            return prompt == null || !(most instanceof Integer max) || max < 1 || max > 4000 ? null : new Chat(prompt, max);
        }

        /** The prompt's tokens, as this fake model counts them: its words. */
        int promptTokens() {
            return prompt.isBlank() ? 1 : prompt.trim().split("\\s+").length;
        }
    }

    private static String chunk(JsonObject choice, JsonObject usage) {
        return new JsonObject().put("id", "chatcmpl-demo").put("object", "chat.completion.chunk").put("model", "fake-model")
                .put("choices", choice == null ? new JsonArray() : new JsonArray().add(choice.put("index", 0)))
                .put("usage", usage).encode();
    }

    private static JsonObject usage(int promptTokens, int completionTokens) {
        return new JsonObject().put("prompt_tokens", promptTokens).put("completion_tokens", completionTokens)
                .put("total_tokens", promptTokens + completionTokens);
    }

    /** The messages' contents, one after the other, or {@code null} for messages that are not a list of them. */
    private static String prompt(Object messages) {
        if (!(messages instanceof JsonArray list) || list.isEmpty()) {
            return null;
        }
        StringBuilder prompt = new StringBuilder();
        for (Object m : list) {
            if (!(m instanceof JsonObject message) || !(message.getValue("content") instanceof String content)) {
                return null;
            }
            prompt.append(content).append('\n');
        }
        return prompt.toString();
    }

    private static JsonObject answer(List<String> tokens, int promptTokens) {
        return new JsonObject().put("id", "chatcmpl-demo").put("object", "chat.completion").put("model", "fake-model")
                .put("choices", new JsonArray().add(new JsonObject().put("index", 0)
                        .put("message", new JsonObject().put("role", "assistant").put("content", String.join(" ", tokens)))
                        .put("finish_reason", "stop")))
                .put("usage", usage(promptTokens, tokens.size()));
    }

    private Uni<String> badRequest() {
        usage.report(0); // a request the model never saw used nothing: its estimate comes back
        return Uni.createFrom().failure(new jakarta.ws.rs.WebApplicationException(problems.response(Problems.of(400,
                "Bad Request", "bad-request", "Send a chat request: {\"messages\": [{\"role\": \"user\", \"content\": "
                        + "\"...\"}]}, optionally \"max_tokens\": 1..4000 (streamed with Accept: text/event-stream)."))));
    }
}
