package dev.slidegate.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * An LLM provider under test, in a process of its own (issue 60), that limits its callers as OpenAI documents it:
 * {@code POST /v1/chat/completions} counts a request when it arrives, in tokens (its size / 4 plus the
 * {@code max_tokens} it asks for) and in requests, and grants at most T tokens and R requests in any second (sliding
 * logs by its own clock), to every caller together; a request that would pass either is answered 429 with
 * {@code Retry-After}. Every answer says both quotas in {@code x-ratelimit-*-tokens} and {@code x-ratelimit-*-requests}.
 * An answer's usage says the prompt's words in and half the {@code max_tokens} out, whole or, for a request with
 * {@code "stream":true}, in a last chunk of server-sent events.
 *
 * <ul>
 * <li>{@code GET /stats}: one line per request since the start, {@code epochMillis tokens status}, oldest first.</li>
 * </ul>
 * Run as {@code java -cp target/test-classes dev.slidegate.testing.TokenUpstream <port> <T> <R>}; it prints
 * {@code listening on <port>} when ready.
 */
public final class TokenUpstream {

    private static final long SECOND = 1_000_000_000L;
    private static final Pattern MAX_TOKENS = Pattern.compile("\"max_tokens\"\\s*:\\s*(\\d+)");
    private static final Pattern CONTENT = Pattern.compile("\"content\"\\s*:\\s*\"([^\"]*)\"");

    private final int tokens;
    private final int requests;
    /** What it granted in the last second: {nanoTime, tokens}, oldest first. */
    private final Deque<long[]> granted = new ArrayDeque<>();
    private final List<String> log = new ArrayList<>();

    private TokenUpstream(int tokens, int requests) {
        this.tokens = tokens;
        this.requests = requests;
    }

    public static void main(String[] args) throws IOException {
        int port = Integer.parseInt(args[0]);
        TokenUpstream upstream = new TokenUpstream(Integer.parseInt(args[1]), Integer.parseInt(args[2]));
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 512);
        server.setExecutor(Executors.newFixedThreadPool(8));
        server.createContext("/v1/chat/completions", upstream::complete);
        server.createContext("/stats", upstream::stats);
        server.start();
        System.out.println("listening on " + port);
    }

    private void complete(HttpExchange x) throws IOException {
        String request = new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        Matcher m = MAX_TOKENS.matcher(request);
        int max = m.find() ? Integer.parseInt(m.group(1)) : 16;
        Matcher c = CONTENT.matcher(request);
        int in = 0;
        while (c.find()) {
            in += c.group(1).isBlank() ? 0 : c.group(1).trim().split("\\s+").length;
        }
        in = Math.max(1, in);
        int out = Math.max(1, max / 2);
        long counted = (request.length() + 3) / 4 + max;
        long now = System.nanoTime();
        long used;
        int calls;
        boolean ok;
        synchronized (this) {
            while (!granted.isEmpty() && granted.peekFirst()[0] <= now - SECOND) {
                granted.pollFirst();
            }
            used = granted.stream().mapToLong(g -> g[1]).sum();
            calls = granted.size();
            ok = used + counted <= tokens && calls + 1 <= requests;
            if (ok) {
                granted.addLast(new long[] { now, counted });
                used += counted;
                calls++;
            }
            log.add(System.currentTimeMillis() + " " + counted + " " + (ok ? 200 : 429));
        }
        var h = x.getResponseHeaders();
        h.add("x-ratelimit-limit-tokens", Integer.toString(tokens));
        h.add("x-ratelimit-remaining-tokens", Long.toString(Math.max(0, tokens - used)));
        h.add("x-ratelimit-reset-tokens", "1s");
        h.add("x-ratelimit-limit-requests", Integer.toString(requests));
        h.add("x-ratelimit-remaining-requests", Integer.toString(Math.max(0, requests - calls)));
        h.add("x-ratelimit-reset-requests", "1s");
        if (!ok) {
            h.add("Retry-After", "1");
            answer(x, 429, "application/json", "{\"error\":{\"message\":\"Rate limit reached\",\"type\":\"tokens\"}}");
            return;
        }
        String usage = "{\"prompt_tokens\":" + in + ",\"completion_tokens\":" + out + ",\"total_tokens\":" + (in + out) + "}";
        if (request.replace(" ", "").contains("\"stream\":true")) {
            answer(x, 200, "text/event-stream",
                    "data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}],"
                            + "\"usage\":null}\n\ndata: {\"id\":\"c\",\"choices\":[],\"usage\":" + usage
                            + "}\n\ndata: [DONE]\n\n");
        } else {
            answer(x, 200, "application/json", "{\"id\":\"c\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,"
                    + "\"message\":{\"role\":\"assistant\",\"content\":\"Hi\"},\"finish_reason\":\"stop\"}],\"usage\":" + usage
                    + "}");
        }
    }

    private void stats(HttpExchange x) throws IOException {
        String out;
        synchronized (this) {
            out = String.join("\n", log);
        }
        answer(x, 200, "text/plain", out);
    }

    private static void answer(HttpExchange x, int status, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        x.getResponseHeaders().add("Content-Type", type);
        x.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = x.getResponseBody()) {
            out.write(bytes);
        }
    }
}
