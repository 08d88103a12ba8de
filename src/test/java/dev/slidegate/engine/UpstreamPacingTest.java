package dev.slidegate.engine;

import static dev.slidegate.testing.Policies.policy;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.slidegate.api.Limit;
import dev.slidegate.api.Policy;
import dev.slidegate.api.Strategy;
import dev.slidegate.core.Clock;
import dev.slidegate.core.UpstreamHeaders;
import dev.slidegate.memory.MemoryStore;
import dev.slidegate.metrics.UpstreamStats;

/**
 * What a hostile upstream's answers can and cannot do to the calls paced to it (issue 56): a learned limit only ever
 * slows the calls (spreading included), and a 429 always holds them, whatever its other fields say.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class UpstreamPacingTest {

    private static final long MARGIN = 5_000;
    private final MemoryStore store = new MemoryStore(Clock.system(), 1000);

    private Upstreams upstreams(boolean spread) {
        return new Upstreams(store, null, new UpstreamStats((io.micrometer.core.instrument.MeterRegistry) null),
                UpstreamHeaders.Form.all(), MARGIN, 1_000_000, 300_000_000, 10_000, spread, 1,
                dev.slidegate.core.Clock.system());
    }

    private static java.util.function.Function<String, List<String>> fields(String... nameValue) {
        Map<String, List<String>> m = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        for (int i = 0; i < nameValue.length; i += 2) {
            m.put(nameValue[i], List.of(nameValue[i + 1]));
        }
        return m::get;
    }

    /** The shortest gap between two calls the paced policy allows: the longest window of a limit of 1 (µs), or 0. */
    private static long spacing(Policy p) {
        return p.limits().stream().filter(l -> l.permits() == 1).mapToLong(Limit::windowMicros).max().orElse(0);
    }

    // "fast";q=1000;w=1 from the upstream added a 1000/1s window, and spreading took W/N of the fastest limit: the next
    // ten calls of a 10/10s policy reached the upstream within half a second (issue 56, point 2)
    @Test
    void aFastWindowTheUpstreamPublishesDoesNotTurnSpreadingOff() {
        Policy quotes = policy("quotes", Strategy.SLIDING_LOG, false, "10/10s").withMaxWait(10_000_000);
        Upstreams u = upstreams(true);
        long before = spacing(u.paced(quotes, "global"));
        assertEquals(1_000_500, before, "one call per (10 s + margin) / 10");
        u.learn(quotes, "global", 200, fields("RateLimit-Policy", "\"fast\";q=1000;w=1")).toCompletableFuture().join();
        Policy paced = u.paced(quotes, "global");
        assertTrue(paced.limits().stream().anyMatch(l -> l.windowMicros() == 1_000_000 + MARGIN),
                "the published window is added: " + paced.limits());
        assertTrue(spacing(paced) >= before, "spacing " + spacing(paced) + " us after learning " + paced.limits());

        // a slower published limit slows the spreading too
        u.learn(quotes, "global", 200, fields("RateLimit-Policy", "\"slow\";q=2;w=10")).toCompletableFuture().join();
        Policy slower = u.paced(quotes, "global");
        assertTrue(spacing(slower) >= 5_000_000, "2 per 10 s spreads one per 5 s: " + slower.limits());
        assertTrue(spacing(u.paced(quotes.withName("other"), "global")) == before, "another policy is untouched");
    }

    // without waiting there is no spreading, and a learned limit still never raises a configured one
    @Test
    void aLearnedLimitNeverRaisesAConfiguredOne() {
        Policy p = policy("partner", Strategy.FIXED_WINDOW, false, "10/1s", "100/1m");
        Upstreams u = upstreams(true);
        u.learn(p, "global", 200, fields("RateLimit-Policy", "\"a\";q=1000;w=1, \"b\";q=50;w=60")).toCompletableFuture()
                .join();
        List<Limit> limits = u.paced(p, "global").limits();
        assertEquals(List.of(new Limit(10, 1_000_000 + MARGIN), new Limit(50, 60_000_000 + MARGIN)), limits);
    }

    // a 429 whose fields overflowed the reader's stack made no hold and failed the call; now it holds, by Retry-After
    // when that reads, else by the stated pause (issue 56, point 1)
    @Test
    void a429WithHostileFieldsStillHolds() {
        Policy p = policy("quotes", Strategy.SLIDING_LOG, false, "10/10s");
        Upstreams u = upstreams(false);
        u.learn(p, "a", 429, fields("Retry-After", "30", "x-ratelimit-reset-tokens", "1m".repeat(1500),
                "x-ratelimit-remaining-tokens", "0", "RateLimit-Policy", "\"" + "q".repeat(2500) + "\";q=1;w=1"))
                .toCompletableFuture().join();
        long held = store.heldFor(u.paced(p, "a"), "a").toCompletableFuture().join();
        assertTrue(held > 29_000_000 && held <= 30_000_000, "held for " + held + " us, by Retry-After");

        u.learn(p, "b", 429, fields("Retry-After", "soon", "x-ratelimit-reset-requests", "1m".repeat(1500),
                "x-ratelimit-remaining-requests", "0")).toCompletableFuture().join();
        long paused = store.heldFor(u.paced(p, "b"), "b").toCompletableFuture().join();
        assertTrue(paused > 900_000 && paused <= 1_000_000,
                "an unreadable reset and Retry-After hold for pause-without-retry-after: " + paused + " us");
    }

    // a provider counts the body it was relayed, a little more than the estimate made on the request the caller sent:
    // its remaining tokens read 0 while the policy's own count had a few left, and the whole fleet was held for the
    // quota's reset (1 s) though the next tokens freed 50 ms later (UpstreamFleetIT read 988 tokens/s of 2 000). Less
    // left than the call just made cost is the policy's own to wait for; room for another such call is not.
    @Test
    void aSpentTokenQuotaIsTheOwnCountsToWaitForWhenItCouldNotAdmitTheCallAgain() {
        Policy tokens = policy("model-tokens", Strategy.SLIDING_LOG, false, "2000/1s").withUnit("tokens");
        Upstreams u = new Upstreams(store, store, new UpstreamStats((io.micrometer.core.instrument.MeterRegistry) null),
                UpstreamHeaders.Form.all(), MARGIN, 1_000_000, 300_000_000, 10_000, false, 1, Clock.system());
        java.util.function.Function<String, List<String>> spent = fields("x-ratelimit-limit-tokens", "2000",
                "x-ratelimit-remaining-tokens", "0", "x-ratelimit-reset-tokens", "1s");

        // 19 calls of 103 tokens by the estimate (1 957): the provider counted 2 000; 43 left by the own count
        Policy paced = u.paced(tokens, "client");
        for (int i = 0; i < 19; i++) {
            assertTrue(store.acquire(paced, "client", 103, 0).toCompletableFuture().join().allowed());
        }
        u.learn(tokens, "client", 200, spent, unit -> false, () -> 103).toCompletableFuture().join();
        assertEquals(0, store.heldFor(paced, "client").toCompletableFuture().join(),
                "43 tokens left of a call of 103: the policy waits for its own permits, no hold");

        // another key: 5 calls of 103 tokens (515) while the provider says none are left: it counts calls the policy
        // does not see (another client of the same quota), and the fleet holds until its reset
        for (int i = 0; i < 5; i++) {
            assertTrue(store.acquire(paced, "shared", 103, 0).toCompletableFuture().join().allowed());
        }
        u.learn(tokens, "shared", 200, spent, unit -> false, () -> 103).toCompletableFuture().join();
        long held = store.heldFor(paced, "shared").toCompletableFuture().join();
        assertTrue(held > 900_000 && held <= 1_000_000, "room for 14 more such calls: held " + held + " us");

        // what a caller controls (its call's cost) explains at most that the next such call waits: a smaller one that
        // goes out gets the provider's 429, which holds whatever the cost said
        u.learn(tokens, "client", 429, spent, unit -> false, () -> 1_000_000).toCompletableFuture().join();
        long after429 = store.heldFor(paced, "client").toCompletableFuture().join();
        assertTrue(after429 > 900_000 && after429 <= 1_000_000, "a 429 holds whatever the cost: " + after429 + " us");
    }
}
