package dev.slidegate.entry;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.slidegate.api.CostResolver;
import dev.slidegate.api.KeyResolver;

/**
 * {@code cost-resolver=llm-request}: a call's estimate in tokens, drawn from the LLM request it sends or answers (issue
 * 60): its prompt's size (a token for every 4 characters of the request) plus the most it asks for
 * ({@code max_tokens}, {@code max_completion_tokens} or {@code max_output_tokens}, the largest named), or
 * {@value #DEFAULT_OUTPUT} when it names none. The request is the call's first argument that is a JSON object: text
 * (a {@code String}, bytes, a Vert.x {@code Buffer}) that is one, a {@code JsonObject}, or an object of the service's
 * own (a record of the request) as its Jackson {@code ObjectMapper} writes it; a call with none is estimated at
 * {@value #DEFAULT_OUTPUT}. Settled with what the answer reports ({@code usage-from=answer}), an estimate that was too
 * high gives the rest back and one too low is charged the rest. Built in: a bean of the service's own {@code @Named}
 * so is used instead.
 */
final class LlmRequestEstimate implements CostResolver {

    /** The name it is selected by. */
    static final String NAME = "llm-request";
    static final LlmRequestEstimate INSTANCE = new LlmRequestEstimate();
    /** The output estimated for a request that names no most. */
    static final int DEFAULT_OUTPUT = 1024;
    /** A name of the most a request asks for, and its number (a quote inside a JSON string is escaped: never this). */
    private static final Pattern MOST = Pattern.compile("\"max_(?:completion_|output_)?tokens\"\\s*:\\s*([0-9]{1,12})");

    @Override
    public long cost(KeyResolver.Call call) {
        CharSequence request = requestOf(call);
        return request == null ? DEFAULT_OUTPUT : estimate(request);
    }

    /** The call's first argument that is an LLM request in JSON ({@link #request}), or {@code null}. */
    private static CharSequence requestOf(KeyResolver.Call call) {
        if (call.arguments() != null) {
            for (Object argument : call.arguments()) {
                CharSequence request = request(argument);
                if (request != null) {
                    return request;
                }
            }
        }
        return null;
    }

    /** The estimate of {@code request}: its characters / 4, plus the most it asks for (or {@link #DEFAULT_OUTPUT}). */
    static long estimate(CharSequence request) {
        return Math.min(Integer.MAX_VALUE, input(request) + output(request));
    }

    /** The input tokens {@code request} is estimated at: its characters / 4. */
    static long input(CharSequence request) {
        return (request.length() + 3L) / 4;
    }

    /** The output tokens {@code request} is estimated at: the most it asks for, or {@link #DEFAULT_OUTPUT}. */
    static long output(CharSequence request) {
        long most = -1;
        Matcher m = MOST.matcher(request);
        while (m.find()) {
            most = Math.max(most, Long.parseLong(m.group(1)));
        }
        return most < 0 ? DEFAULT_OUTPUT : Math.min(Integer.MAX_VALUE, most);
    }

    /**
     * What estimates a policy that counts {@code part} of a call's tokens ({@code input-limits}, {@code output-limits}):
     * for {@code llm-request}, that part of its estimate; any other resolver (or none) estimates the part as it does the
     * whole.
     */
    static CostResolver part(CostResolver whole, dev.slidegate.core.Settlement.Part part) {
        if (!(whole instanceof LlmRequestEstimate)) {
            return whole;
        }
        boolean input = part == dev.slidegate.core.Settlement.Part.INPUT;
        return call -> {
            CharSequence request = requestOf(call);
            return request == null ? (input ? 1 : DEFAULT_OUTPUT) : input ? input(request) : output(request);
        };
    }

    /**
     * {@code argument} as an LLM request in JSON, or {@code null} when it is none: text (a {@code String}, bytes, a Vert.x
     * {@code Buffer}) that is a JSON object, a Vert.x {@code JsonObject}, or an object of the service's own (a record of
     * the request), written by the service's Jackson {@code ObjectMapper}, as a REST client or an endpoint would.
     */
    private static CharSequence request(Object argument) {
        CharSequence text;
        if (argument == null || argument instanceof Number || argument instanceof Boolean || argument instanceof Character
                || argument instanceof Enum<?> || argument instanceof java.time.temporal.TemporalAccessor) {
            return null;
        } else if (argument instanceof CharSequence t) {
            text = t;
        } else if (argument instanceof byte[] bytes) {
            text = new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1);
        } else if (argument instanceof io.vertx.core.json.JsonObject json) {
            return json.encode();
        } else if (argument instanceof io.vertx.core.buffer.Buffer buffer) {
            text = buffer.toString(java.nio.charset.StandardCharsets.ISO_8859_1);
        } else {
            return written(argument);
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return c == '{' ? text : null; // a header's value, a path parameter: not the request
            }
        }
        return null;
    }

    /** The service's {@code ObjectMapper} and the container it came from: looked up once per running application. */
    private record Mapper(io.quarkus.arc.ArcContainer arc, com.fasterxml.jackson.databind.ObjectMapper mapper) {
    }

    private static volatile Mapper mapper;

    /** An object of the service's own, as its {@code ObjectMapper} writes it; {@code null} when it cannot. */
    private static CharSequence written(Object argument) {
        io.quarkus.arc.ArcContainer arc = io.quarkus.arc.Arc.container();
        if (arc == null) {
            return null;
        }
        Mapper m = mapper;
        if (m == null || m.arc() != arc) { // (an application started again, in tests, has a container of its own)
            io.quarkus.arc.InstanceHandle<com.fasterxml.jackson.databind.ObjectMapper> found = arc
                    .instance(com.fasterxml.jackson.databind.ObjectMapper.class);
            if (!found.isAvailable()) {
                return null;
            }
            mapper = m = new Mapper(arc, found.get());
        }
        try {
            String json = m.mapper().writeValueAsString(argument);
            return json.startsWith("{") ? json : null;
        } catch (com.fasterxml.jackson.core.JsonProcessingException | RuntimeException notJson) {
            return null;
        }
    }
}
