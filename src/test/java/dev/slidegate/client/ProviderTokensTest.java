package dev.slidegate.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import jakarta.inject.Inject;

import org.eclipse.microprofile.rest.client.inject.RestClient;
import org.junit.jupiter.api.Test;

import dev.slidegate.api.RateLimitExceededException;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * Issue 60, outgoing: a client of an LLM provider paced in tokens and in requests learns the provider's quotas of both
 * from its answers ({@code x-ratelimit-limit-tokens}, {@code -requests}, far below the policies' own) and keeps inside
 * them: 8 threads call for 4 s with random prompts and {@code max_tokens}, each call charged what its request may use, as
 * the provider counts it, by both policies at the instant it goes out. The oracle is the provider's own count: no 429 in
 * steady state (from the third second), and, not over-cautious, most of the quota that binds used.
 */
// a regression fails in seconds, never hangs the build
@org.junit.jupiter.api.Timeout(value = 60, unit = java.util.concurrent.TimeUnit.SECONDS)
@QuarkusTest
@TestProfile(dev.slidegate.http.SharedProfiles.Demo.class) // the demo as it ships (and Envoy's rate-limit service)
class ProviderTokensTest {

    @Inject
    @RestClient
    TokenProviderClient client;

    @Test
    void aFleetOfCallsKeepsInsideTheProvidersQuotaOfTokens() throws Exception {
        long start = System.nanoTime();
        long end = start + 4_000_000_000L;
        AtomicLong answered = new AtomicLong();
        AtomicLong refusedHere = new AtomicLong();
        AtomicLong providerRefused = new AtomicLong();
        List<Thread> threads = new java.util.ArrayList<>();
        for (int t = 0; t < 8; t++) {
            Thread th = new Thread(() -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                while (System.nanoTime() < end) {
                    StringBuilder prompt = new StringBuilder();
                    for (int w = 1 + random.nextInt(20); w > 0; w--) {
                        prompt.append("word ");
                    }
                    String request = "{\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt + "\"}],\"max_tokens\":"
                            + (1 + random.nextInt(300)) + "}";
                    try {
                        client.complete(request);
                        answered.incrementAndGet();
                    } catch (RateLimitExceededException e) {
                        refusedHere.incrementAndGet(); // could not wait its 3 s: never sent
                    } catch (jakarta.ws.rs.WebApplicationException e) {
                        assertEquals(429, e.getResponse().getStatus(), e.toString());
                        providerRefused.incrementAndGet();
                    }
                }
            });
            threads.add(th);
            th.start();
        }
        for (Thread th : threads) {
            th.join();
        }
        // steady from the third window on: the first calls of a cold client reach the provider later than the shipped
        // margin (50 ms; 75 ms measured here: a first connection), and what they put in its first window can meet a 429
        // in the second; that 429 holds every call until the provider's window has room
        long steady = start + 2 * TokenProvider.WINDOW_NANOS;
        long lateRefusals = TokenProvider.REFUSALS.stream().filter(r -> r[0] >= steady).count();
        long served;
        long calls;
        long last;
        synchronized (TokenProvider.LOG) {
            served = TokenProvider.LOG.stream().filter(s -> s[0] >= steady).mapToLong(s -> s[1]).sum();
            calls = TokenProvider.LOG.stream().filter(s -> s[0] >= steady).count();
            last = TokenProvider.LOG.stream().mapToLong(s -> s[0]).max().orElse(steady);
        }
        double perSecond = served / ((last - steady) / 1e9);
        double callsPerSecond = calls / ((last - steady) / 1e9);
        System.out.printf("provider quota %d tokens/s and " + TokenProvider.REQUESTS
                + " requests/s: %d answered, %d refused by the provider (%d after the second second), "
                + "%d refused here; after the second second %.0f tokens/s and %.1f requests/s counted by the provider%n",
                TokenProvider.TOKENS, answered.get(), TokenProvider.REFUSED.get(), lateRefusals, refusedHere.get(), perSecond,
                callsPerSecond);
        assertEquals(0, lateRefusals, "the provider refused calls once its quota of tokens was known");
        assertTrue(Math.max(perSecond / TokenProvider.TOKENS, callsPerSecond / TokenProvider.REQUESTS) >= 0.6,
                "the quotas were barely used: " + perSecond + " tokens/s, " + callsPerSecond + " requests/s");
    }
}
