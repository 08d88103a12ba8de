package dev.slidegate.client;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.atomic.AtomicLong;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import io.vertx.core.json.JsonObject;

/**
 * A stand-in of an LLM provider that limits its callers in tokens as OpenAI documents it: a request counts, when it
 * arrives, its characters / 4 plus the {@code max_tokens} it asks for, and at most {@value #TOKENS} are counted in any
 * second, with at most {@value #REQUESTS} requests (sliding logs by its own clock); a request that would pass either is
 * answered 429. Its answer's usage says what it
 * used, less: the prompt's words and half the {@code max_tokens}. Every answer says both quotas in
 * {@code x-ratelimit-*-tokens} and {@code -requests}. Its own counts are the oracle: the 429s it answered and the tokens it
 * counted.
 */
@Path("/test/token-provider")
public class TokenProvider {

    static final int TOKENS = 2000;
    static final int REQUESTS = 12;
    static final long WINDOW_NANOS = 1_000_000_000L;

    /** What it served: {instant, tokens}, oldest first. */
    private static final Deque<long[]> SERVED = new ArrayDeque<>();
    static final AtomicLong REFUSED = new AtomicLong();
    static final java.util.List<long[]> REFUSALS = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
    static final java.util.List<long[]> LOG = java.util.Collections.synchronizedList(new java.util.ArrayList<>());

    @POST
    @Path("v1/chat/completions")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response complete(String request) {
        JsonObject body = new JsonObject(request);
        String prompt = body.getJsonArray("messages").getJsonObject(0).getString("content");
        int in = prompt.isBlank() ? 1 : prompt.trim().split("\\s+").length;
        int max = body.getInteger("max_tokens", 2);
        int out = Math.max(1, max / 2);
        long counted = (request.length() + 3) / 4 + max;
        long now = System.nanoTime();
        long used;
        synchronized (SERVED) {
            while (!SERVED.isEmpty() && SERVED.peekFirst()[0] <= now - WINDOW_NANOS) {
                SERVED.pollFirst();
            }
            used = SERVED.stream().mapToLong(s -> s[1]).sum();
            if (used + counted > TOKENS || SERVED.size() + 1 > REQUESTS) {
                REFUSED.incrementAndGet();
                REFUSALS.add(new long[] { now, counted });
                return Response.status(429).header("x-ratelimit-limit-tokens", TOKENS)
                        .header("x-ratelimit-remaining-tokens", TOKENS - used).header("x-ratelimit-reset-tokens", "1s")
                        .header("x-ratelimit-limit-requests", REQUESTS)
                        .header("x-ratelimit-remaining-requests", REQUESTS - SERVED.size())
                        .header("x-ratelimit-reset-requests", "1s").header("Retry-After", "1").build();
            }
            SERVED.addLast(new long[] { now, counted });
            LOG.add(new long[] { now, counted });
            used += counted;
        }
        return Response.ok(new JsonObject().put("id", "chatcmpl-1").put("object", "chat.completion")
                .put("usage", new JsonObject().put("prompt_tokens", in).put("completion_tokens", out)
                        .put("total_tokens", in + out))
                .encode(), MediaType.APPLICATION_JSON).header("x-ratelimit-limit-tokens", TOKENS)
                .header("x-ratelimit-remaining-tokens", TOKENS - used).header("x-ratelimit-reset-tokens", "1s")
                .header("x-ratelimit-limit-requests", REQUESTS)
                .header("x-ratelimit-remaining-requests", REQUESTS - SERVED.size()).header("x-ratelimit-reset-requests", "1s")
                .build();
    }
}
