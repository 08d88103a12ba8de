package dev.slidegate.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.slidegate.testing.Eventually;
import dev.slidegate.testing.Leftovers;
import dev.slidegate.testing.Ports;
import dev.slidegate.testing.QuotaUpstream;
import dev.slidegate.testing.RedisServer;
import dev.slidegate.testing.TokenUpstream;

/**
 * Issue 39 as a fleet runs it: three packaged instances of the demo on one Redis call a partner API of its own process
 * ({@link QuotaUpstream}: N per fixed window W, exactly) through the {@code quotes} REST client, 48 callers flat out.
 * The upstream's own counts are the oracle: its 429s, and what it granted per window.
 * <ul>
 * <li>for each form the upstream publishes its quota in (IETF, legacy, LLM), a window each: no 429, and at least 90% of N
 * granted in
 * every window;</li>
 * <li>the upstream lowers N at run time and announces it: at most one 429 per instance at the change, none after;</li>
 * <li>a second client Slidegate cannot see hammers the upstream: its 429s hold every instance, at most one 429 per
 * instance per window.</li>
 * <li>issue 60: the demo's chat relays to an LLM provider of its own process ({@link TokenUpstream}: T tokens and R
 * requests in any second, counted as OpenAI counts them, said in {@code x-ratelimit-*}), 24 callers with random prompts
 * and {@code max_tokens}, whole and streamed: no 429 from the provider once both quotas are learned (from the third
 * second), and most of the quota that binds used.</li>
 * </ul>
 * The instances run with the shipped defaults (the margin of 50 ms included); the policy mirrors the upstream's quota,
 * as a user configures it.
 */
class UpstreamFleetIT {

    private static final int N = 30;
    private static final long W = 1_000;
    private static final int CALLERS = 48;
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** What the upstream counted in one window: granted and refused to the fleet, to the other client. */
    private record Window(long index, long granted, long refused, long otherGranted, long otherRefused) {
    }

    @Test
    void theFleetUsesTheUpstreamsQuotaWithoutA429AndFollowsWhatItPublishes() throws Exception {
        int port = Ports.free();
        int modelPort = Ports.free();
        try (RedisServer redis = RedisServer.start();
                Upstream upstream = Upstream.start(port, QuotaUpstream.class, port, N, W, "ietf");
                Upstream model = Upstream.start(modelPort, TokenUpstream.class, modelPort, TOKENS, REQUESTS);
                ServiceProcess.Fleet instances = start(redis, port, modelPort)) {
            List<ServiceProcess> fleet = instances.instances();
            for (ServiceProcess s : fleet) {
                assertEquals(200, s.get("/api/quotes/WARM").statusCode(), s.log());
            }
            // one load throughout, the upstream changing under it at window edges; the first window lets the JIT
            // compile the path and the callers queue
            try (Load load = new Load(fleet)) {
                long from = nextWindow() + 2;
                for (String form : List.of("ietf", "legacy", "llm")) {
                    nextWindow(from);
                    upstream.control("form=" + form);
                    long to = nextWindow(from + 1); // one whole window per form
                    List<Window> windows = upstream.windows(from, to);
                    from = to;
                    System.out.printf("upstream %s: %s; callers saw %s%n", form, windows, load.statuses);
                    assertEquals(0, windows.stream().mapToLong(Window::refused).sum(),
                            form + ": the upstream refused the fleet: " + windows);
                    for (Window w : windows) {
                        assertTrue(w.granted() >= 0.9 * N, () -> form + ": the fleet used " + w.granted() + " of " + N
                                + " in window " + w.index() + ": " + windows + "\n" + slidegateLines(fleet));
                    }
                }

                // the upstream halves its quota at run time and says so in its answers
                long change = nextWindow();
                upstream.control("form=ietf&limit=" + N / 2);
                long after = nextWindow(change + 3);
                List<Window> lowered = upstream.windows(change, after);
                System.out.printf("upstream lowered to %d at window %d: %s; callers saw %s%n", N / 2, change, lowered,
                        load.statuses);
                long atChange = lowered.stream().mapToLong(Window::refused).sum();
                assertTrue(atChange <= fleet.size(),
                        () -> "more than one 429 per instance at the change: " + lowered + "\n" + slidegateLines(fleet));
                for (Window w : lowered) {
                    assertTrue(w.index() <= change + 1 || w.refused() == 0,
                            () -> "a 429 after the change: " + lowered + "\n" + slidegateLines(fleet));
                }
                for (ServiceProcess s : fleet) {
                    Eventually.eventually(Duration.ofSeconds(5), () -> log(s),
                            l -> l.contains("paces key 'client:quotes' at [" + N / 2 + "/1s")
                                    || l.contains("holds every call of key 'client:quotes'"),
                            "instance on " + s.port + " to follow");
                }

                // traffic Slidegate cannot see uses the quota: its 429s hold the fleet
                long shared = nextWindow();
                upstream.control("limit=" + N);
                AtomicBoolean hammering = new AtomicBoolean(true);
                Thread hammer = new Thread(() -> {
                    while (hammering.get()) {
                        try {
                            HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/quotes/X?other=1"))
                                    .build(), HttpResponse.BodyHandlers.discarding());
                            TimeUnit.MILLISECONDS.sleep(10);
                        } catch (IOException e) {
                            // the upstream is busy: try again
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                });
                hammer.start();
                long end;
                try {
                    end = nextWindow(shared + 3);
                } finally {
                    hammering.set(false);
                    hammer.join();
                }
                List<Window> windows = upstream.windows(shared, end);
                System.out.printf("upstream shared with another client: %s; callers saw %s%n", windows, load.statuses);
                for (Window w : windows) {
                    assertTrue(w.refused() <= fleet.size(), () -> "more 429s than instances in window " + w.index() + ": "
                            + windows + "\n" + slidegateLines(fleet));
                }
                assertTrue(windows.stream().mapToLong(Window::otherGranted).sum() > 0, "the other client got nothing: "
                        + windows);
            }
            theFleetKeepsInsideTheQuotasOfAProviderOfTokens(fleet, model);
            for (ServiceProcess s : fleet) {
                assertEquals(0, s.log().lines().filter(l -> l.contains("ERROR")).count(), s.log());
            }
        }
    }

    /** The provider's quotas: tokens and requests in any second. */
    private static final int TOKENS = 2_000;
    private static final int REQUESTS = 12;

    private static void theFleetKeepsInsideTheQuotasOfAProviderOfTokens(List<ServiceProcess> fleet, Upstream model)
            throws Exception {
        long start = System.currentTimeMillis();
        Map<String, AtomicInteger> statuses = new ConcurrentHashMap<>();
        List<String> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Thread> callers = new ArrayList<>();
        for (int t = 0; t < CALLERS / 2; t++) {
            ServiceProcess target = fleet.get(t % fleet.size());
            String key = "caller-" + t;
            boolean streamed = t % 2 == 1;
            Thread th = new Thread(() -> {
                java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
                while (System.currentTimeMillis() < start + 4_000) {
                    String request = "{\"messages\":[{\"role\":\"user\",\"content\":\"" + "word ".repeat(1 + random.nextInt(40))
                            + "\"}],\"max_tokens\":" + (1 + random.nextInt(300)) + "}";
                    String status;
                    try {
                        HttpResponse<String> answer = HTTP.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                                + target.port + "/api/chat")).header("X-Api-Key", key)
                                .header("Content-Type", "application/json")
                                .header("Accept", streamed ? "text/event-stream" : "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(request)).build(),
                                HttpResponse.BodyHandlers.ofString())
                                .get(20, TimeUnit.SECONDS);
                        status = (streamed ? "stream " : "whole ") + answer.statusCode()
                                + (answer.body().contains("\"error\"") ? " error" : "");
                        if (answer.statusCode() >= 500 && answer.statusCode() != 502) {
                            failures.add(answer.statusCode() + " " + answer.body());
                        }
                    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                        failures.add(e.toString());
                        status = (streamed ? "stream " : "whole ") + e.getClass().getSimpleName();
                    } catch (InterruptedException e) {
                        return;
                    }
                    statuses.computeIfAbsent(status, s -> new AtomicInteger()).incrementAndGet();
                }
            });
            th.start();
            callers.add(th);
        }
        for (Thread th : callers) {
            th.join();
        }
        // steady from the third second to the end of the load: the first calls go out before any answer said the quotas,
        // and the calls still waiting when the load ends go out with fewer callers behind them
        long steady = start + 2_000;
        long end = start + 4_000;
        List<long[]> calls = model.get("/stats").lines().filter(l -> !l.isBlank()).map(l -> java.util.Arrays
                .stream(l.split(" ")).mapToLong(Long::parseLong).toArray()).toList();
        long refused = calls.stream().filter(c -> c[0] >= steady && c[2] == 429).count();
        List<long[]> served = calls.stream().filter(c -> c[0] >= steady && c[0] < end && c[2] == 200).toList();
        double seconds = (end - steady) / 1000.0;
        double tokens = served.stream().mapToLong(c -> c[1]).sum() / seconds;
        double requests = served.size() / seconds;
        System.out.printf("provider of %d tokens and %d requests a second: %d calls, %d refused (%d from the third second); "
                + "from the third to the fourth second %.0f tokens/s and %.1f requests/s; callers saw %s%n", TOKENS, REQUESTS,
                calls.size(), calls.stream().filter(c -> c[2] == 429).count(), refused, tokens, requests, statuses);
        System.out.println("provider's calls (ms from the start, tokens, status): " + calls.stream()
                .map(c -> (c[0] - start) + " " + c[1] + " " + c[2]).collect(java.util.stream.Collectors.joining(", ")));
        assertEquals(0, refused,
                "the provider refused calls of the fleet once its quotas were known\n" + slidegateLines(fleet));
        String waits = waitCounts(fleet);
        System.out.println("each instance's held calls of the provider's policies:\n" + waits);
        assertTrue(Math.max(tokens / TOKENS, requests / REQUESTS) >= 0.6, () -> "the provider's quotas were barely used: "
                + tokens + " tokens/s, " + requests + " requests/s\n" + waits + slidegateLines(fleet));
        // every caller was answered: the chat (whole or streamed), or a sentence: 502 when the provider refused (before its
        // quotas were known) or its connection failed under the call (ProviderFailures), 429 when the call would have waited longer than its policy's max-wait, an error event when
        // the stream's answer was under way; never a failure of the service
        assertTrue(statuses.keySet().stream().allMatch(k -> Set.of("whole 200", "stream 200", "whole 502", "whole 429",
                "stream 200 error").contains(k)), "a chat failed: " + statuses + " " + failures.stream().distinct().limit(5)
                        .toList() + "\n"
                        + String.join("\n", fleet.stream().flatMap(f -> log(f).lines()
                                .filter(l -> l.contains("ERROR") || l.contains("Exception"))).limit(40).toList()));
    }

    /** Sleeps until the next window of the upstream begins (its clock is this machine's); returns that window's index. */
    private static long nextWindow() throws InterruptedException {
        return nextWindow(System.currentTimeMillis() / W + 1);
    }

    /** Sleeps until window {@code index} begins; returns it. */
    private static long nextWindow(long index) throws InterruptedException {
        long wait = index * W - System.currentTimeMillis();
        if (wait > 0) {
            TimeUnit.MILLISECONDS.sleep(wait);
        }
        return index;
    }

    /** What the instances logged of their decisions, for a failure's message. */
    /**
     * Each instance's counts of the provider's policies' held calls (how long, and how many woke or were taken up late and
     * were decided again: {@code slidegate_wait*}), for a failure's message: the instances log late wakes once a minute,
     * after this test.
     */
    private static String waitCounts(List<ServiceProcess> fleet) {
        StringBuilder out = new StringBuilder();
        for (ServiceProcess s : fleet) {
            try {
                HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.port + "/q/metrics")).build(),
                        HttpResponse.BodyHandlers.ofString()).body().lines()
                        .filter(l -> l.startsWith("slidegate_wait") && l.contains("model-") && !l.contains("_bucket"))
                        .forEach(l -> out.append(s.port).append(' ').append(l).append('\n'));
            } catch (IOException e) {
                out.append(s.port).append(" /q/metrics: ").append(e).append('\n');
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return out.toString();
            }
        }
        return out.toString();
    }

    private static String slidegateLines(List<ServiceProcess> fleet) {
        return String.join("\n", fleet.stream().flatMap(s -> log(s).lines().filter(l -> l.contains("[dev.slidegate"))
                .map(l -> s.port + " " + l)).toList());
    }

    private static String log(ServiceProcess s) {
        try {
            return s.log();
        } catch (IOException e) {
            return "";
        }
    }

    private static ServiceProcess.Fleet start(RedisServer redis, int upstream, int model) {
        return ServiceProcess.fleet(3, "-Dquarkus.redis.hosts=" + redis.uri(),
                "-Dquarkus.rest-client.quotes.url=http://127.0.0.1:" + upstream,
                "-Dquarkus.rest-client.model.url=http://127.0.0.1:" + model,
                // the provider counts per second, as OpenAI does per minute: the policies' windows mirror its own
                "-Dslidegate.policies.model-requests.limits=10000/1s", "-Dslidegate.policies.model-tokens.limits=10000000/1s",
                "-Dslidegate.policies.quotes.limits=" + N + "/" + W + "ms", "-Dslidegate.policies.quotes.max-wait=10s");
    }

    /** 48 callers calling the fleet in turn, flat out, until closed (then waiting for their last answers). */
    private static final class Load implements AutoCloseable {
        final Map<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final List<Thread> callers = new ArrayList<>();

        Load(List<ServiceProcess> fleet) {
            for (int t = 0; t < CALLERS; t++) {
                ServiceProcess target = fleet.get(t % fleet.size());
                Thread th = new Thread(() -> {
                    while (running.get()) {
                        int status;
                        try {
                            status = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + target.port
                                    + "/api/quotes/ACME")).timeout(Duration.ofSeconds(20)).build(),
                                    HttpResponse.BodyHandlers.discarding()).statusCode();
                        } catch (IOException e) {
                            status = -1;
                        } catch (InterruptedException e) {
                            return;
                        }
                        statuses.computeIfAbsent(status, s -> new AtomicInteger()).incrementAndGet();
                    }
                });
                th.start();
                callers.add(th);
            }
        }

        @Override
        public void close() throws InterruptedException {
            running.set(false);
            for (Thread th : callers) {
                th.join();
            }
        }
    }

    /** The upstream's process. */
    private static final class Upstream implements AutoCloseable {
        private final Process process;
        private final int port;

        private Upstream(Process process, int port) {
            this.process = process;
            this.port = port;
        }

        static Upstream start(int port, Class<?> main, Object... args) throws IOException {
            Path log = Leftovers.tempFile("upstream-" + port, ".log");
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            List<String> command = new ArrayList<>(List.of(java, "-cp", Path.of("target", "test-classes").toString(),
                    main.getName()));
            for (Object a : args) {
                command.add(a.toString());
            }
            Process p = Leftovers.process(new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile())
                    .start());
            Upstream upstream = new Upstream(p, port);
            Eventually.eventually(Duration.ofSeconds(30), () -> Files.readString(log), out -> out.contains("listening on"),
                    "the upstream to listen on " + port);
            return upstream;
        }

        void control(String query) {
            try {
                HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/control?" + query))
                        .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.discarding());
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }

        String get(String path) throws IOException, InterruptedException {
            return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
        }

        /** The windows the upstream counted from index {@code from} to before {@code to}. */
        List<Window> windows(long from, long to) throws IOException, InterruptedException {
            String stats = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/stats")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            Map<Long, Window> byIndex = new TreeMap<>();
            for (String line : stats.split("\n")) {
                if (line.isBlank()) {
                    continue;
                }
                String[] f = line.trim().split(" ");
                Window w = new Window(Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]),
                        Long.parseLong(f[4]));
                if (w.index() >= from && w.index() < to) {
                    byIndex.put(w.index(), w);
                }
            }
            return List.copyOf(byIndex.values());
        }

        @Override
        public void close() {
            process.destroy();
            try {
                if (!process.waitFor(5, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            Leftovers.stopped(process);
        }
    }
}
