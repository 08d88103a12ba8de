package dev.slidegate.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import dev.slidegate.testing.Brackets;
import dev.slidegate.testing.Eventually;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * A held call released on time whose worker thread takes it up late (every worker busy) does not run on its permit
 * beside the calls released after it: judged where the endpoint runs, with its own run instants, and the shipped late
 * tolerance. The service gives its blocking endpoints one worker thread, and another request keeps it busy.
 */
@QuarkusTest
@TestProfile(StarvedWorkersTest.OneWorker.class)
class StarvedWorkersTest {

    /** The demo limits, in a service whose blocking endpoints share a single worker thread. */
    public static class OneWorker extends SmallLimits {
        @Override
        public Map<String, String> getConfigOverrides() {
            return plus("quarkus.thread-pool.max-threads", "1", "quarkus.thread-pool.core-threads", "1",
                    "slidegate.policies.starved-path.limits", "1/500ms", "slidegate.policies.starved-path.key", "global",
                    "slidegate.policies.starved-path.max-wait", "3s", "slidegate.policies.starved-path.paths",
                    "/test/starved/path", "slidegate.policies.starved-first-path.limits", "1/500ms",
                    "slidegate.policies.starved-first-path.key", "global", "slidegate.policies.starved-first-path.max-wait",
                    "2s", "slidegate.policies.starved-first-path.paths", "/test/starved/first-path");
        }
    }

    private static final long W = 500_000_000L; // ns

    @TestHTTPResource("/test/starved/paced")
    URI paced;
    @TestHTTPResource("/test/starved/path")
    URI path;
    @TestHTTPResource("/test/starved/busy")
    URI busy;
    @TestHTTPResource("/test/starved/first")
    URI first;
    @TestHTTPResource("/test/starved/first-path")
    URI firstPath;

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private record Sent(String id, long sent, long answered, int status, List<String> state) {
    }

    // A runs at once; B and C wait for their permits (A + W, A + 2W). The only worker is kept busy from before B's
    // release to 250 ms after it, so B's worker takes it up 250 ms late, while C's permit is 250 ms later still. Run on
    // its permit, B would run 250 ms before C: two runs of a 1-per-500 ms policy provably in one window. Decided again
    // where its worker starts it, B waits for the next permit instead
    @Test
    void aHeldCallItsWorkerTakesUpTooLateIsDecidedAgainNotRunBesideTheCallsAfterIt() throws Exception {
        StarvedResource.RUNS.clear();
        scenario(paced, StarvedResource.RUNS);
    }

    // the same, for a policy attached to the endpoint's path by configuration: the router holds the call, and the
    // endpoint's worker thread checks it was taken up in time
    @Test
    void aCallHeldByAPathPolicyThatItsWorkerTakesUpTooLateIsDecidedAgain() throws Exception {
        StarvedResource.PATH_RUNS.clear();
        scenario(path, StarvedResource.PATH_RUNS);
    }

    // A call admitted at once is decided before its request is dispatched (the request filter), while the only worker
    // is busy for about 350 ms more; a second call, sent 30 ms later, waits for its permit, 500 ms after the first. Run
    // when the worker comes, the first would run about 150 ms before the second: two runs of a 1-per-500 ms policy
    // provably in one window (once seen in WaitingCallsTest with a cold first call). Checked where its worker takes it
    // up, it is decided again and waits for the next permit
    @Test
    void aCallAdmittedAtOnceThatItsWorkerTakesUpTooLateIsDecidedAgain() throws Exception {
        StarvedResource.FIRST_RUNS.clear();
        admittedAtOnce(first, StarvedResource.FIRST_RUNS);
    }

    // the same, for a policy attached to the endpoint's path by configuration: the router admits the call
    @Test
    void aCallAdmittedAtOnceByAPathPolicyThatItsWorkerTakesUpTooLateIsDecidedAgain() throws Exception {
        StarvedResource.FIRST_PATH_RUNS.clear();
        admittedAtOnce(firstPath, StarvedResource.FIRST_PATH_RUNS);
    }

    private void admittedAtOnce(URI endpoint, Queue<WaitResource.Run> ran) throws Exception {
        // a first call, admitted at once: the interceptor decides an annotated endpoint's first call itself, where it runs
        // (it learns then that the request alone decides it); the next ones are decided before dispatch
        Sent warm = send(endpoint, "W");
        assertEquals(200, warm.status(), warm.toString());
        WaitingCallsTest.sleepUntil(runs(ran).get("W") + W + 20_000_000L); // its permit has left every window
        int busyBefore = StarvedResource.BUSY.get();
        CompletableFuture<HttpResponse<String>> worker = client.sendAsync(
                HttpRequest.newBuilder(URI.create(busy + "?until=" + (System.nanoTime() + 400_000_000L))).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        Eventually.eventually(Duration.ofSeconds(5), StarvedResource.BUSY::get, n -> n > busyBefore,
                "the only worker is busy");
        CompletableFuture<Sent> a = CompletableFuture.supplyAsync(() -> send(endpoint, "A"));
        WaitingCallsTest.sleepUntil(System.nanoTime() + 30_000_000L);
        CompletableFuture<Sent> b = CompletableFuture.supplyAsync(() -> send(endpoint, "B"));
        List<Sent> sent = List.of(warm, a.get(), b.get());
        assertEquals(200, worker.get().statusCode());
        judge(sent, runs(ran));
    }

    private void scenario(URI endpoint, Queue<WaitResource.Run> ran) throws Exception {
        Sent a = send(endpoint, "A");
        assertEquals(200, a.status(), a.toString());
        long ranA = runs(ran).get("A");
        CompletableFuture<Sent> b = CompletableFuture.supplyAsync(() -> send(endpoint, "B"));
        WaitingCallsTest.sleepUntil(ranA + 100_000_000L);
        CompletableFuture<Sent> c = CompletableFuture.supplyAsync(() -> send(endpoint, "C"));
        WaitingCallsTest.sleepUntil(ranA + 300_000_000L);
        CompletableFuture<HttpResponse<String>> worker = client.sendAsync(
                HttpRequest.newBuilder(URI.create(busy + "?until=" + (ranA + W + 250_000_000L))).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        List<Sent> sent = new ArrayList<>(List.of(a, b.get(), c.get()));
        assertEquals(200, worker.get().statusCode());
        judge(sent, runs(ran));
    }

    /**
     * Each call admitted within its max-wait, run while its client waited, answering with one decision's fields; and the
     * endpoint's own run instants at most one in any 500 ms (issue 56: a permit of a waiting policy occupies its window
     * for the late tolerance too).
     */
    private static void judge(List<Sent> sent, Map<String, Long> runs) {
        Brackets brackets = new Brackets();
        for (Sent s : sent) {
            assertEquals(200, s.status(),
                    "each call waits for a permit within its max-wait: " + s + "; runs " + runs + ", sent " + sent);
            Long run = runs.get(s.id());
            assertTrue(run != null && run >= s.sent() && run <= s.answered(), s + " ran at " + run);
            brackets.add(run, run);
            // a call decided again answers with its new decision's fields only
            assertEquals(1, s.state().size(), s.toString());
            assertEquals(1, s.state().get(0).split(",").length, s.toString());
        }
        assertEquals(1, brackets.maxProvable(W), "runs within one window of 500 ms, limit 1: " + runs);
    }

    private static Map<String, Long> runs(Queue<WaitResource.Run> ran) {
        Map<String, Long> runs = new HashMap<>();
        ran.forEach(r -> runs.put(r.request(), r.nanos()));
        return runs;
    }

    private Sent send(URI uri, String id) {
        long before = System.nanoTime();
        try {
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(uri).header("X-Request", id).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            return new Sent(id, before, System.nanoTime(), r.statusCode(), r.headers().allValues("RateLimit"));
        } catch (Exception e) {
            throw new IllegalStateException("request " + id + " failed", e);
        }
    }
}
