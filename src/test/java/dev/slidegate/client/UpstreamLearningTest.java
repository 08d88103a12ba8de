package dev.slidegate.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.inject.Inject;
import jakarta.ws.rs.WebApplicationException;

import org.eclipse.microprofile.rest.client.inject.RestClient;
import org.junit.jupiter.api.Test;

import dev.slidegate.api.Decision;
import dev.slidegate.api.RateLimitExceededException;
import dev.slidegate.api.RateLimiter;
import dev.slidegate.config.PolicyCatalog;
import dev.slidegate.engine.Upstreams;
import dev.slidegate.http.SmallLimits;
import dev.slidegate.metrics.UpstreamStats;
import dev.slidegate.testing.LogCapture;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * Issue 39 in one service: a REST client whose calls {@code @RateLimited} paces, against an upstream of the test's own
 * ({@link EchoUpstream}) that answers whatever header fields the test asks for. What the upstream receives, by its own
 * clock, is the oracle: a hold is judged by when the next call reached it, a refusal by its never arriving.
 */
@QuarkusTest
@TestProfile(SmallLimits.class)
class UpstreamLearningTest {

    private static final AtomicInteger TENANTS = new AtomicInteger();
    private static final long MS = 1_000_000L;

    @Inject
    @RestClient
    EchoClient client;

    @Inject
    RateLimiter limiter;

    @Inject
    Upstreams upstreams;

    @Inject
    PolicyCatalog catalog;

    @Inject
    UpstreamStats stats;

    @TestHTTPResource("/test/upstream/echo")
    URI echo;

    /** How a log line shows a tenant's key: a fingerprint, never the key (it may be a credential). */
    private static String shown(String tenant) throws Exception {
        byte[] d = java.security.MessageDigest.getInstance("SHA-256")
                .digest(("arg:" + tenant).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return "key #" + java.util.HexFormat.of().formatHex(d, 0, 4);
    }

    private static String tenant() {
        return "t" + TENANTS.incrementAndGet() + "-" + System.nanoTime();
    }

    // a 429 with Retry-After holds the client's next calls until it ends, without a thread for the Uni form; the
    // upstream sees the next call no earlier
    @Test
    void a429WithRetryAfterHoldsTheNextCallsUntilItEnds() throws Exception {
        int before = EchoUpstream.of(null).size();
        WebApplicationException refused = assertThrows(WebApplicationException.class,
                () -> client.waiting(429, List.of("Retry-After: 1")));
        assertEquals(429, refused.getResponse().getStatus());
        CompletableFuture<String> async = client.waitingAsync(200, List.of()).subscribeAsCompletionStage();
        assertEquals("ok", client.waiting(200, List.of()));
        assertEquals("ok", async.get(10, TimeUnit.SECONDS));
        List<EchoUpstream.Arrival> seen = EchoUpstream.of(null).subList(before, before + 3);
        for (int i = 1; i < 3; i++) {
            long gap = seen.get(i).nanos() - seen.get(0).nanos();
            assertTrue(gap >= 1000 * MS, "call " + i + " reached the upstream " + gap / MS + " ms after its 429");
        }
        assertTrue(stats.last("echo").refusals() >= 1);
    }

    // "0 remaining until T" (the IETF fields) holds the next call until T
    @Test
    void aQuotaWithNothingLeftHoldsTheNextCallUntilItsReset() {
        int before = EchoUpstream.of(null).size();
        assertEquals("ok", client.waiting(200, List.of("RateLimit-Policy: \"default\";q=100;w=60",
                "RateLimit: \"default\";r=0;t=1")));
        assertEquals("ok", client.waiting(200, List.of()));
        List<EchoUpstream.Arrival> seen = EchoUpstream.of(null).subList(before, before + 2);
        long gap = seen.get(1).nanos() - seen.get(0).nanos();
        assertTrue(gap >= 1000 * MS, "the next call reached the upstream " + gap / MS + " ms after the one told r=0;t=1");
    }

    // a call that may not wait that long is refused at once and never sent; another tenant's quota is untouched
    @Test
    void aCallThatMayNotWaitForTheHoldIsRefusedAtOnceAndNeverSent() {
        String t = tenant();
        assertThrows(WebApplicationException.class, () -> client.tenant(t, 429, List.of("Retry-After: 30")));
        RateLimitExceededException e = assertThrows(RateLimitExceededException.class, () -> client.tenant(t, 200, List.of()));
        long retry = e.decision().retryAfterMicros();
        assertTrue(retry > 28_000_000 && retry <= 30_000_000, "retry-after " + retry + " us");
        assertEquals(1, EchoUpstream.of(t).size(), "the refused call reached the upstream");
        // issue 56: the refusal says the upstream's pause, not the limit that spreads the calls
        assertTrue(e.heldByUpstream() && e.getMessage().contains("its upstream asked for a pause"), e.getMessage());
        dev.slidegate.http.Problem body = dev.slidegate.http.Problems.rateLimited(e);
        assertTrue(body.type().endsWith("/upstream-paused") && body.detail().contains("asked for a pause"), body.toString());
        String other = tenant();
        assertEquals("ok", client.tenant(other, 200, List.of()));

        // the same through a Uni: its response is read under the key its call was decided under
        String async = tenant();
        assertThrows(WebApplicationException.class,
                () -> client.tenantAsync(async, 429, List.of("Retry-After: 30")).await().atMost(Duration.ofSeconds(10)));
        assertThrows(RateLimitExceededException.class,
                () -> client.tenantAsync(async, 200, List.of()).await().atMost(Duration.ofSeconds(10)));
        assertEquals(1, EchoUpstream.of(async).size(), "the refused call reached the upstream");
    }

    // a published limit lower than the configured one paces the key at it; a limit no lower restores the configured one
    @Test
    void aPublishedLowerLimitPacesTheKeyUntilTheUpstreamSaysOtherwise() throws Exception {
        try (LogCapture log = LogCapture.of("dev.slidegate.upstream")) {
            String t = tenant();
            assertEquals("ok", client.tenant(t, 200, List.of("RateLimit-Policy: \"burst\";q=2;w=60")));
            // nothing left, says the upstream, as the policy's own count says: its own permits pace the key, no hold
            assertEquals("ok", client.tenant(t, 200, List.of("RateLimit: \"burst\";r=0;t=30")));
            RateLimitExceededException e = assertThrows(RateLimitExceededException.class,
                    () -> client.tenant(t, 200, List.of()));
            assertEquals(2, e.decision().states().get(0).limit().permits(), e.getMessage());
            assertEquals(2, EchoUpstream.of(t).size());

            String u = tenant();
            assertEquals("ok", client.tenant(u, 200, List.of("X-RateLimit-Limit: 3", "X-RateLimit-Remaining: 2")));
            assertEquals("ok", client.tenant(u, 200, List.of("X-RateLimit-Limit: 1000", "X-RateLimit-Remaining: 997")));
            for (int i = 0; i < 3; i++) {
                assertEquals("ok", client.tenant(u, 200, List.of()), "the configured 100/1m is back");
            }
            List<String> lines = log.lines();
            String st = shown(t);
            String su = shown(u);
            assertTrue(lines.stream().anyMatch(l -> l.contains("'echo-tenant' paces " + st + " at [2/1m]")), lines::toString);
            assertTrue(lines.stream().anyMatch(l -> l.contains("paces " + su + " at its configured limits [100/1m]")),
                    lines::toString);
            assertTrue(lines.stream().noneMatch(l -> l.contains(t) || l.contains(u)), "a tenant's key is never logged");
            assertTrue(lines.stream().noneMatch(l -> l.contains("holds every call of " + st)), lines::toString);

            // spent tokens are nothing the policy counts: they hold the key whatever its own count says
            String v = tenant();
            assertEquals("ok", client.tenant(v, 200, List.of("x-ratelimit-limit-requests: 1",
                    "x-ratelimit-remaining-requests: 0", "x-ratelimit-reset-requests: 20s", "x-ratelimit-remaining-tokens: 0",
                    "x-ratelimit-reset-tokens: 10s")));
            String sv = shown(v);
            assertTrue(log.lines().stream().anyMatch(l -> l.contains("holds every call of " + sv + " for 20000 ms")),
                    log.lines()::toString);
            assertTrue(e.decision().retryAfterMicros() > 30_000_000, "its own window, not the upstream's reset: " + e);
        }
    }

    // issue 60: an LLM provider publishes a quota of requests and one of tokens; each policy of the client learns the one
    // of its unit (before, a policy of tokens learned the requests' 50 and allowed no call of 1 000 tokens)
    @Test
    void aPolicyOfTokensLearnsTheTokensQuotaAndOneOfCallsTheRequestsQuota() throws Exception {
        try (LogCapture log = LogCapture.of("dev.slidegate.upstream")) {
            String t = tenant();
            List<String> provider = List.of("x-ratelimit-limit-requests: 50", "x-ratelimit-remaining-requests: 49",
                    "x-ratelimit-reset-requests: 1s", "x-ratelimit-limit-tokens: 3000",
                    "x-ratelimit-remaining-tokens: 2000", "x-ratelimit-reset-tokens: 20s");
            for (int i = 0; i < 3; i++) {
                assertEquals("ok", client.tokens(t, 200, provider), "call " + i + " of 1 000 tokens within 3 000");
            }
            RateLimitExceededException e = assertThrows(RateLimitExceededException.class,
                    () -> client.tokens(t, 200, List.of()));
            assertEquals("echo-tpm", e.decision().policy().name(), e.getMessage());
            assertEquals(3000, e.decision().states().get(0).limit().permits(), e.getMessage());
            assertEquals(3, EchoUpstream.of(t).size());
            String st = shown(t);
            assertTrue(log.lines().stream().anyMatch(l -> l.contains("'echo-tpm' paces " + st + " at [3000/1m]")),
                    log.lines()::toString);
            assertTrue(log.lines().stream().anyMatch(l -> l.contains("'echo-rpm' paces " + st + " at [50/1m]")),
                    log.lines()::toString);
        }
    }

    // what a hostile or broken upstream sends is bounded, said once, and the caller keeps working
    @Test
    void hostileHeadersAreBoundedSaidOnceAndTheCallerKeepsWorking() {
        try (LogCapture log = LogCapture.of("dev.slidegate.upstream")) {
            String t = tenant();
            List<String> broken = List.of("X-RateLimit-Remaining: lots", "X-RateLimit-Limit: -5",
                    "RateLimit-Policy: not a structured field", "x-ratelimit-reset-requests: forever",
                    "RateLimit-Limit: 99999999999999999999999");
            for (int i = 0; i < 3; i++) {
                assertEquals("ok", client.tenant(t, 200, broken));
            }
            long warnings = log.lines().stream().filter(l -> l.startsWith("WARN")).count();
            assertTrue(warnings >= 4 && warnings <= broken.size(), log.lines().toString());

            String u = tenant();
            assertThrows(WebApplicationException.class, () -> client.tenant(u, 429, List.of("Retry-After: 999999999")));
            RateLimitExceededException e = assertThrows(RateLimitExceededException.class,
                    () -> client.tenant(u, 200, List.of()));
            long retry = e.decision().retryAfterMicros();
            assertTrue(retry > 290_000_000 && retry <= 300_000_000,
                    "a year's Retry-After is cut to the ceiling (5m): " + retry);
            assertTrue(log.lines().stream().anyMatch(l -> l.contains("Retry-After")), log.lines().toString());
        }
    }

    // a hold made while a call waited (another instance's 429) voids its permit: it waits for the hold, then goes out
    @Test
    void aHoldMadeWhileACallWaitsHoldsItToo() throws Exception {
        int before = EchoUpstream.of(null).size();
        assertThrows(WebApplicationException.class, () -> client.waiting(429, List.of("Retry-After: 1")));
        long answered = System.nanoTime();
        CompletableFuture<String> waiting = client.waitingAsync(200, List.of()).subscribeAsCompletionStage();
        // another instance hears that nothing is left for 1.5 s (it reaches the same store), while this call waits
        upstreams.learn(catalog.get("echo").policy(), "client:echo-upstream", 429,
                name -> name.equalsIgnoreCase("x-ratelimit-remaining-requests") ? List.of("0")
                        : name.equalsIgnoreCase("x-ratelimit-reset-requests") ? List.of("1500ms") : null)
                .toCompletableFuture().join();
        assertEquals("ok", waiting.get(10, TimeUnit.SECONDS));
        long gap = EchoUpstream.of(null).get(before + 1).nanos() - answered;
        assertTrue(gap >= 1500 * MS, "the waiting call went out " + gap / MS + " ms after the first hold, within the second");
    }

    // the demo's quotes endpoint calls the partner through a paced REST client: the answer this service gives carries
    // neither the partner's RateLimit fields nor the outgoing policy's (they are not its caller's limits)
    @Test
    void anOutgoingCallLeavesTheAnswerOfTheRequestItServesAlone() {
        io.restassured.response.Response direct = io.restassured.RestAssured.get("/partner/quotes/ACME");
        assertTrue(direct.getHeader("RateLimit-Policy") != null, "the partner publishes its quota");
        io.restassured.response.Response r = io.restassured.RestAssured.get("/api/quotes/ACME");
        assertEquals(200, r.statusCode(), r.asString());
        assertTrue(r.asString().contains("\"symbol\":\"ACME\""), r.asString());
        assertEquals(null, r.getHeader("RateLimit"), r.headers().toString());
        assertEquals(null, r.getHeader("RateLimit-Policy"), r.headers().toString());
        assertEquals(null, r.getHeader("Retry-After"), r.headers().toString());
    }

    // the RateLimiter paces calls made with any client and learns from what they answer
    @Test
    void theRateLimiterLearnsFromAnyClient() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        String t = tenant();
        assertTrue(limiter.acquireBlocking("prog-out", t).allowed());
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(echo + "?status=429&h=Retry-After:%201")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(429, r.statusCode());
        limiter.learn("prog-out", t, r.statusCode(), r.headers()::allValues).toCompletableFuture().join();
        Decision next = limiter.acquire("prog-out", t, 1, Duration.ofSeconds(3)).toCompletableFuture().join();
        assertTrue(next.allowed() && next.waitMicros() > 900_000, next.toString());

        IllegalArgumentException notOutgoing = assertThrows(IllegalArgumentException.class,
                () -> limiter.learn("prog", t, 429, java.util.Map.of()));
        assertTrue(notOutgoing.getMessage().contains("slidegate.policies.prog.outgoing=true"), notOutgoing.getMessage());
        assertInstanceOf(IllegalArgumentException.class,
                assertThrows(IllegalArgumentException.class, () -> limiter.learn("prog-out", " ", 200, java.util.Map.of())));
    }
}
