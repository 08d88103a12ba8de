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
 * A chat endpoint that speaks OpenAI's chat completions (issue 60), answered by the demo's {@link FakeModel}, or relayed
 * to a provider when {@code quarkus.rest-client.model.url} names one ({@link ModelClient}, paced by what the provider
 * publishes): the
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
    /** The provider relayed to, or {@code null} when none is configured (the fake model answers). */
    private final ModelClient provider;
    private final String authorization;

    ChatResource(FakeModel model, Usage usage, ProblemMappers problems,
            @org.eclipse.microprofile.rest.client.inject.RestClient jakarta.enterprise.inject.Instance<ModelClient> provider,
            @org.eclipse.microprofile.config.inject.ConfigProperty(name = "quarkus.rest-client.model.url") java.util.Optional<String> url,
            DemoConfig config) {
        this.model = model;
        this.usage = usage;
        this.problems = problems;
        this.provider = url.filter(u -> !u.isBlank()).isPresent() ? provider.get() : null;
        this.authorization = config.chat().modelKey().map(k -> "Bearer " + k).orElse(null);
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
        if (provider != null) {
            return provider.complete(relayed(request, false), authorization).onFailure().transform(this::providerFailed);
        }
        return model.complete(chat.prompt(), chat.max(), Duration.ZERO).collect().asList()
                .map(tokens -> answer(tokens, chat.promptTokens()).encode());
    }

    /**
     * The same completion streamed, as OpenAI streams one to a client that asks for {@code text/event-stream}: a chunk per
     * token, then one with the usage ({@code stream_options.include_usage}), each an event's data. Read as it passes. On a
     * worker thread, so that it is decided before its stream starts: a refusal is a 429, an admission carries the
     * RateLimit fields.
     */
    @POST
    @RateLimited("chat-tokens")
    @RateLimited("chat-burst")
    @io.smallrye.common.annotation.Blocking // decided before the stream is returned (its cost is read from its body)
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
        if (provider != null) {
            // the stream's answer (200, text/event-stream) is under way when the provider's fails: said in a last event
            return provider.stream(relayed(request, true), authorization).onFailure()
                    .recoverWithItem(failure -> errorEvent(providerFailed(failure)));
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

    /** The request as the provider is asked it: streamed with its usage in a last chunk, or whole. */
    private static String relayed(String request, boolean stream) {
        JsonObject body = new JsonObject(request).put("stream", stream);
        if (stream) {
            body.put("stream_options", new JsonObject().put("include_usage", true));
        } else {
            body.remove("stream_options");
        }
        return body.encode();
    }

    /** What the caller is told when the provider did not answer ({@link ProviderFailures}). */
    private Throwable providerFailed(Throwable failure) {
        return ProviderFailures.answer(failure, usage, problems::response);
    }

    /** A failure as the last event of a stream, as OpenAI streams an error: {@code {"error": {"message", "code"}}}. */
    private static String errorEvent(Throwable failure) {
        int status = failure instanceof jakarta.ws.rs.WebApplicationException e ? e.getResponse().getStatus()
                : failure instanceof dev.slidegate.api.RateLimitExceededException ? 429 : 500;
        String message = status == 429 ? "The model's provider is busy: " + failure.getMessage()
                : status == 502 ? "The model's provider failed." : "The chat failed.";
        return new JsonObject().put("error", new JsonObject().put("message", message).put("code", status)).encode();
    }

    private Uni<String> badRequest() {
        usage.report(0); // a request the model never saw used nothing: its estimate comes back
        return Uni.createFrom().failure(new jakarta.ws.rs.WebApplicationException(problems.response(Problems.of(400,
                "Bad Request", "bad-request", "Send a chat request: {\"messages\": [{\"role\": \"user\", \"content\": "
                        + "\"...\"}]}, optionally \"max_tokens\": 1..4000 (streamed with Accept: text/event-stream)."))));
    }
}
