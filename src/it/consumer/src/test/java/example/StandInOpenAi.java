package example;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import com.sun.net.httpserver.HttpServer;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/**
 * A stand-in of OpenAI's chat completions, as its published format says, on a port of its own, where the tests point
 * quarkus-langchain4j's client ({@code quarkus.langchain4j.openai.base-url}): every answer used 11 tokens in, 7 out.
 * A request that asks for a stream ({@code "stream":true}) is answered with chunks of server-sent events, the usage in a
 * last chunk when it asked for one ({@code stream_options.include_usage}), then {@code [DONE]}.
 */
public class StandInOpenAi implements QuarkusTestResourceLifecycleManager {

    static final String ANSWER = "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"created\":1,\"model\":\"gpt-4o-mini\","
            + "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"Hello\"},\"finish_reason\":\"stop\"}],"
            + "\"usage\":{\"prompt_tokens\":11,\"completion_tokens\":7,\"total_tokens\":18}}";

    private HttpServer server;

    @Override
    public Map<String, String> start() {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        server.createContext("/v1/chat/completions", exchange -> {
            String request = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            boolean stream = request.replace(" ", "").contains("\"stream\":true");
            byte[] body = (stream ? streamed(request.replace(" ", "").contains("\"include_usage\":true")) : ANSWER)
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", stream ? "text/event-stream" : "application/json");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
        return Map.of("quarkus.langchain4j.openai.base-url",
                "http://127.0.0.1:" + server.getAddress().getPort() + "/v1");
    }

    /** The answer as OpenAI streams it: the text in two chunks, the usage in a last chunk when asked for. */
    static String streamed(boolean usage) {
        String chunk = "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,"
                + "\"model\":\"gpt-4o-mini\",\"choices\":[%s],\"usage\":%s}\n\n";
        return chunk.formatted("{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hel\"},\"finish_reason\":null}",
                "null")
                + chunk.formatted("{\"index\":0,\"delta\":{\"content\":\"lo\"},\"finish_reason\":\"stop\"}", "null")
                + (usage ? chunk.formatted("", "{\"prompt_tokens\":11,\"completion_tokens\":7,\"total_tokens\":18}") : "")
                + "data: [DONE]\n\n";
    }

    @Override
    public void stop() {
        if (server != null) {
            server.stop(0);
        }
    }
}
