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
}
