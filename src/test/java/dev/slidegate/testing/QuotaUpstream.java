package dev.slidegate.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * An upstream API under test, in a process of its own (issue 39): {@code GET /quotes/<symbol>} grants at most N calls
 * per fixed window of W milliseconds (epoch-aligned: window k is {@code [kW, (k+1)W)} by this process's clock, as
 * many APIs count), to every caller together, and answers every other with 429 and {@code Retry-After} (whole seconds,
 * rounded up). It publishes its quota in one form: {@code ietf} ({@code RateLimit-Policy}, {@code RateLimit}),
 * {@code legacy} ({@code X-RateLimit-*}, the reset as epoch seconds) or {@code llm} ({@code x-ratelimit-*-requests},
 * the reset as a duration). It counts, per window, what it granted and refused to the fleet and to other callers (a
 * call with {@code ?other=1}).
 *
 * <ul>
 * <li>{@code GET /stats}: one line per window since the last reset, {@code window granted refused otherGranted
 * otherRefused}, oldest first;</li>
 * <li>{@code POST /control?limit=N} changes N from the next call on (announced in every answer); {@code ?form=}
 * the form; {@code ?reset=1} forgets the stats.</li>
 * </ul>
 * Run as {@code java -cp target/test-classes dev.slidegate.testing.QuotaUpstream <port> <N> <W ms> <form>}; it prints
 * {@code listening on <port>} when ready.
 */
public final class QuotaUpstream {

    private final long windowMillis;
    private volatile int limit;
    private volatile String form;
    private long window = -1;
    private int used;
    /** Per window index: granted, refused, other granted, other refused. */
    private final Map<Long, long[]> stats = new TreeMap<>();

    private QuotaUpstream(int limit, long windowMillis, String form) {
        this.limit = limit;
        this.windowMillis = windowMillis;
        this.form = form;
    }

    public static void main(String[] args) throws IOException {
        int port = Integer.parseInt(args[0]);
        QuotaUpstream upstream = new QuotaUpstream(Integer.parseInt(args[1]), Long.parseLong(args[2]), args[3]);
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 512);
        server.setExecutor(Executors.newFixedThreadPool(8));
        server.createContext("/quotes/", upstream::quote);
        server.createContext("/stats", upstream::stats);
        server.createContext("/control", upstream::control);
        server.start();
        System.out.println("listening on " + port);
    }

    private void quote(HttpExchange x) throws IOException {
        long now = System.currentTimeMillis();
        boolean other = String.valueOf(x.getRequestURI().getQuery()).contains("other=1");
        int n = limit;
        boolean granted;
        int left;
        synchronized (this) {
            long k = now / windowMillis;
            if (k != window) {
                window = k;
                used = 0;
            }
            granted = used < n;
            if (granted) {
                used++;
            }
            left = Math.max(0, n - used);
            long[] s = stats.computeIfAbsent(k, i -> new long[4]);
            s[(other ? 2 : 0) + (granted ? 0 : 1)]++;
        }
        long resetMillis = (now / windowMillis + 1) * windowMillis - now;
        long resetSeconds = Math.max(1, (resetMillis + 999) / 1000);
        var h = x.getResponseHeaders();
        switch (form) {
            case "ietf" -> {
                h.add("RateLimit-Policy", "\"fixed\";q=" + n + ";w=" + Math.max(1, windowMillis / 1000));
                h.add("RateLimit", "\"fixed\";r=" + left + ";t=" + resetSeconds);
            }
            case "legacy" -> {
                h.add("X-RateLimit-Limit", Integer.toString(n));
                h.add("X-RateLimit-Remaining", Integer.toString(left));
                h.add("X-RateLimit-Reset", Long.toString((now + resetMillis + 999) / 1000));
            }
            default -> {
                h.add("x-ratelimit-limit-requests", Integer.toString(n));
                h.add("x-ratelimit-remaining-requests", Integer.toString(left));
                h.add("x-ratelimit-reset-requests", resetMillis + "ms");
            }
        }
        if (!granted) {
            h.add("Retry-After", Long.toString(resetSeconds));
        }
        answer(x, granted ? 200 : 429, granted ? "{\"price\":42}" : "{\"error\":\"rate limited\"}");
    }

    private void stats(HttpExchange x) throws IOException {
        StringBuilder out = new StringBuilder();
        synchronized (this) {
            stats.forEach((k, s) -> out.append(k).append(' ').append(s[0]).append(' ').append(s[1]).append(' ').append(s[2])
                    .append(' ').append(s[3]).append('\n'));
        }
        answer(x, 200, out.toString());
    }

    private void control(HttpExchange x) throws IOException {
        String q = String.valueOf(x.getRequestURI().getQuery());
        for (String part : q.split("&")) {
            String[] kv = part.split("=", 2);
            if (kv.length < 2) {
                continue;
            }
            switch (kv[0]) {
                case "limit" -> limit = Integer.parseInt(kv[1]);
                case "form" -> form = kv[1];
                case "reset" -> {
                    synchronized (this) {
                        stats.clear();
                    }
                }
                default -> {
                }
            }
        }
        answer(x, 200, "limit=" + limit + " form=" + form);
    }

    private static void answer(HttpExchange x, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        x.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = x.getResponseBody()) {
            out.write(bytes);
        }
    }
}
