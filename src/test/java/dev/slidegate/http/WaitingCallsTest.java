package dev.slidegate.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

import dev.slidegate.engine.Waits;
import dev.slidegate.testing.Brackets;
import dev.slidegate.testing.Eventually;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * Calls that wait for their permits over HTTP, in process (issue 38), judged where the endpoint runs: each run
 * instant is stamped by the endpoint itself ({@link WaitResource}), each send and answer by the client, all on this
 * JVM's monotonic clock, with the shipped defaults.
 */
@QuarkusTest
@TestProfile(SmallLimits.class)
class WaitingCallsTest {

    private static final int N = 5;
    private static final long W = 500_000_000L; // ns

    @TestHTTPResource("/test/wait/paced")
    URI paced;
    @TestHTTPResource("/test/wait/far")
    URI far;
    @TestHTTPResource("/test/wait/gone")
    URI gone;
    @TestHTTPResource("/test/wait/bean")
    URI bean;
    @TestHTTPResource("/test/wait/path")
    URI path;
    @Inject
    Waits waits;

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** One request: what the client saw. */
    private record Sent(String id, long sent, long answered, int status, String body, String retryAfter) {
    }

    /** The shipped late tolerance: a held call runs at most this long after its permit's instant. */
    private static long toleranceNanos() {
        return ConfigProvider.getConfig().getValue("slidegate.wait.late-tolerance", Duration.class).toNanos();
    }

    // 24 clients offer three times the limit (5 per 500 ms) to a policy with max-wait = 2 W. Every call is admitted
    // or refused at once with a plain 429; the endpoint's own run instants hold at most N in any W (each permit of a
    // waiting policy occupies its window for the shipped late tolerance too: issue 56); the limit is used once callers
    // queue (N per W + tolerance); and calls sent well apart run in the order they were sent
    @Test
    void waitingCallsRunWithinTheLimitInArrivalOrderAndUseIt() throws Exception {
        WaitResource.PACED.clear();
        ConcurrentLinkedQueue<Sent> sent = new ConcurrentLinkedQueue<>();
        long start = System.nanoTime();
        long stopSending = start + 12 * W;
        List<Thread> clients = new ArrayList<>();
        for (int c = 0; c < 24; c++) {
            int client = c;
            Thread t = new Thread(() -> {
                Random random = new Random(client);
                long next = start + random.nextInt(800_000_000);
                int i = 0;
                while (next < stopSending) {
                    sleepUntil(next);
                    sent.add(send(paced, client + "-" + i++));
                    next += 800_000_000L; // 24 clients, each every 0.8 s: 30 per second offered, 3N per W
                }
            });
            t.start();
            clients.add(t);
        }
        for (Thread t : clients) {
            t.join();
        }
        Map<String, Long> runs = new HashMap<>();
        WaitResource.PACED.forEach(r -> runs.put(r.request(), r.nanos()));
        long tolerance = toleranceNanos();
        Brackets brackets = new Brackets();
        List<Sent> admitted = new ArrayList<>();
        long firstRefusal = Long.MAX_VALUE;
        for (Sent s : sent) {
            assertTrue(s.status() == 200 || s.status() == 429, s.toString());
            if (s.status() == 429) {
                assertFalse(runs.containsKey(s.id()), "a refused call never ran: " + s);
                assertTrue(s.body().contains("#quota-exceeded") && !s.body().contains("too many calls are waiting"),
                        "refused by the limit, not the waiting room: " + s);
                assertNotNull(s.retryAfter(), s.toString());
                firstRefusal = Math.min(firstRefusal, s.sent());
                continue;
            }
            Long run = runs.get(s.id());
            assertNotNull(run, "an admitted call ran: " + s);
            assertTrue(run >= s.sent() && run <= s.answered(), s + " ran at " + run);
            brackets.add(run, run);
            admitted.add(s);
        }
        assertTrue(admitted.size() > sent.size() / 5 && firstRefusal < Long.MAX_VALUE,
                admitted.size() + " of " + sent.size() + " admitted");
        int most = brackets.maxProvable(W);
        assertTrue(most <= N, () -> most + " runs within one window of 500 ms, limit " + N + "; the admitted calls "
                + "(sent, run, answered, in ms from the start), by run:\n" + listing(admitted, runs, start));
        // used: from a window after callers first queued to the last send, at least 95% of N per window and tolerance ran
        long from = firstRefusal + W;
        long to = stopSending - W;
        long ran = runs.values().stream().filter(r -> r >= from && r < to).count();
        double expected = 0.95 * N * (to - from) / (W + tolerance);
        assertTrue(ran >= Math.floor(expected) - 1, ran + " runs in " + (to - from) / 1_000_000 + " ms, expected " + expected);
        // in arrival order: of two admitted calls sent 100 ms apart or more, the earlier never runs later than the
        // tolerance after the other
        for (Sent a : admitted) {
            for (Sent b : admitted) {
                if (a.sent() + 100_000_000L < b.sent()) {
                    assertTrue(runs.get(a.id()) <= runs.get(b.id()) + tolerance, a + " ran after " + b);
                }
            }
        }
        assertEquals(0, waits.waiting(), "every place in the waiting room was given back");
    }

    // a call whose permit is further away than its max-wait never waits to be refused: with max-wait 5 s and the
    // next permit 10 s away, the refusal arrives before a 5 s marker started with the request
    @Test
    void aCallThatCannotBeAdmittedInTimeIsRefusedAtOnce() throws Exception {
        Sent first = send(far, "f1");
        assertEquals(200, first.status(), first.toString());
        CompletableFuture<Void> marker = CompletableFuture.runAsync(() -> {
        }, CompletableFuture.delayedExecutor(5, TimeUnit.SECONDS));
        Sent second = send(far, "f2");
        assertFalse(marker.isDone(), "the refusal came before the 5 s marker");
        assertEquals(429, second.status(), second.toString());
        assertTrue(Long.parseLong(second.retryAfter()) >= 9, "the permit is 10 s away: " + second);
        assertEquals(1, WaitResource.FAR_CALLS.get());
    }

    // a client that goes away while its call waits: the call never runs, its place is given back, and its permit stays
    // charged (an over-charge, never an over-admission)
    @Test
    void aCallWhoseClientWentAwayIsLetGo() throws Exception {
        Sent first = send(gone, "g1");
        assertEquals(200, first.status(), first.toString());
        try (Socket s = new Socket(gone.getHost(), gone.getPort())) {
            OutputStream out = s.getOutputStream();
            out.write(("GET " + gone.getPath() + " HTTP/1.1\r\nHost: localhost\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            Eventually.eventually(Duration.ofSeconds(5), () -> waits.waiting(), n -> n == 1, "the call waits");
            // the admin sees it wait: on the key and on the policy's live counters
            dev.slidegate.testing.AdminCredentials.admin().get("/admin/policies/wait-gone/keys/global").then().statusCode(200)
                    .body("waiting", org.hamcrest.Matchers.equalTo(1));
        }
        Eventually.eventually(Duration.ofSeconds(10), () -> waits.waiting(), n -> n == 0, "the wait ends");
        // a third call waits behind the abandoned one's permit (it stays charged), so it runs two seconds after the
        // abandoned call would have: by then, that one has run or never will
        Sent third = send(gone, "g3");
        assertEquals(200, third.status(), third.toString());
        assertEquals(2, WaitResource.GONE_CALLS.get(), "the call whose client went away did not run");
    }

    // a bean method returning Uni waits in the interceptor: three calls at once, two admitted at once and the third
    // held, none refused, and the runs keep 2 per 300 ms
    @Test
    void aBeanMethodWaitsWithoutAThread() throws Exception {
        WaitResource.BEAN.clear();
        List<CompletableFuture<Sent>> calls = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String id = "b" + i;
            calls.add(CompletableFuture.supplyAsync(() -> send(bean, id)));
        }
        Brackets brackets = new Brackets();
        Map<String, Long> runs = new HashMap<>();
        WaitResource.BEAN.forEach(r -> runs.put(r.request(), r.nanos()));
        for (CompletableFuture<Sent> c : calls) {
            Sent s = c.get(10, TimeUnit.SECONDS);
            assertEquals(200, s.status(), s.toString());
        }
        WaitResource.BEAN.forEach(r -> runs.put(r.request(), r.nanos()));
        assertEquals(3, runs.size());
        long tolerance = toleranceNanos();
        for (CompletableFuture<Sent> c : calls) {
            Sent s = c.join();
            long run = runs.get(s.id());
            brackets.add(run, run);
        }
        assertTrue(brackets.maxProvable(300_000_000L) <= 2, "at most 2 runs in any 300 ms");
        // Prometheus: how long the held call waited, and that nobody waits now
        String metrics = io.restassured.RestAssured.given().get("/q/metrics").then().statusCode(200).extract().asString();
        assertTrue(metrics.contains("slidegate_wait_seconds_count{policy=\"wait-bean\"} 1.0"), metrics);
        assertTrue(metrics.contains("slidegate_waiting{policy=\"wait-bean\"} 0.0"), metrics);
    }

    // a policy attached by configuration waits in the router as annotated ones do: three calls at once, one at once and
    // two held a second apart, each run provably alone in its second
    @Test
    void aPathPolicyWaitsInTheRouter() throws Exception {
        WaitResource.PATH.clear();
        List<CompletableFuture<Sent>> calls = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String id = "p" + i;
            calls.add(CompletableFuture.supplyAsync(() -> send(path, id)));
        }
        Map<String, Sent> answers = new HashMap<>();
        for (CompletableFuture<Sent> c : calls) {
            Sent s = c.get(15, TimeUnit.SECONDS);
            assertEquals(200, s.status(), s.toString());
            answers.put(s.id(), s);
        }
        Brackets brackets = new Brackets();
        long tolerance = toleranceNanos();
        for (WaitResource.Run r : WaitResource.PATH) {
            Sent s = answers.get(r.request());
            brackets.add(r.nanos(), r.nanos());
        }
        assertEquals(3, brackets.size());
        assertTrue(brackets.maxProvable(1_000_000_000L) <= 1, "one run per second, by the endpoint's clock");
    }

    /** Each admitted call's send, run and answer, in milliseconds from {@code start}, in the order they ran. */
    private static String listing(List<Sent> admitted, Map<String, Long> runs, long start) {
        StringBuilder out = new StringBuilder();
        admitted.stream().sorted(java.util.Comparator.comparingLong(s -> runs.get(s.id())))
                .forEach(s -> out.append(String.format("  %-6s %9.3f %9.3f %9.3f%n", s.id(), (s.sent() - start) / 1e6,
                        (runs.get(s.id()) - start) / 1e6, (s.answered() - start) / 1e6)));
        return out.toString();
    }

    private Sent send(URI uri, String id) {
        long before = System.nanoTime();
        try {
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(uri).header("X-Request", id).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            return new Sent(id, before, System.nanoTime(), r.statusCode(), r.body(),
                    r.headers().firstValue("Retry-After").orElse(null));
        } catch (Exception e) {
            throw new IllegalStateException("request " + id + " failed", e);
        }
    }

    /** Parks the calling thread until {@link System#nanoTime()} reaches {@code nanos}. */
    static void sleepUntil(long nanos) {
        long left;
        while ((left = nanos - System.nanoTime()) > 0) {
            java.util.concurrent.locks.LockSupport.parkNanos(left);
        }
    }
}
