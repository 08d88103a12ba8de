package dev.slidegate.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.slidegate.admin.AdminViews.KeyList;
import dev.slidegate.api.Decision;
import dev.slidegate.api.Policy;
import dev.slidegate.config.PolicyRegistry;
import dev.slidegate.memory.MemoryStore;
import dev.slidegate.metrics.DecisionStats;
import dev.slidegate.testing.ManualClock;
import dev.slidegate.testing.TestConfigs;

/**
 * {@code sort=usage} reads every key of a policy: the work is bounded (a fixed number of reads in
 * flight) and shared (one ranking serves every page and viewer for a second), so a busy admin page
 * cannot put thousands of reads on the store at once.
 */
class AdminRankingTest {

    /** Answers reads a millisecond later, on another thread, and records how many were in flight at most. */
    static final class SlowReads extends dev.slidegate.core.ForwardingInspection {
        final MemoryStore memory;
        final AtomicInteger reads = new AtomicInteger();
        final AtomicInteger inFlight = new AtomicInteger();
        final AtomicInteger maxInFlight = new AtomicInteger();
        final ScheduledExecutorService later = Executors.newScheduledThreadPool(4);

        SlowReads(MemoryStore memory) {
            super(memory);
            this.memory = memory;
        }

        @Override
        public CompletionStage<Decision> peek(Policy policy, String key) {
            if (key.startsWith("hdr:stuck")) {
                return new CompletableFuture<>(); // never answers
            }
            reads.incrementAndGet();
            maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            CompletableFuture<Decision> answer = new CompletableFuture<>();
            later.schedule(() -> {
                inFlight.decrementAndGet();
                delegate.peek(policy, key).whenComplete((d, e) -> answer.complete(d));
            }, 1, TimeUnit.MILLISECONDS);
            return answer;
        }
    }

    private final ManualClock clock = new ManualClock();
    private final SlowReads store = new SlowReads(new MemoryStore(clock, 100_000));
    private final PolicyRegistry registry = new PolicyRegistry(TestConfigs.slidegate(Map.of()));
    private final PolicyRegistry.Resolved ranked = registry
            .resolve(new PolicyRegistry.Declared("ranked", List.of("10/1h"), "", ""), "X#m");
    private final Policy policy = ranked.policy();
    private final AdminService admin = new AdminService(dev.slidegate.config.StoreStack.inProcess(store.memory, store, clock),
            dev.slidegate.config.PolicyCatalog.of(registry,
                    List.of(new dev.slidegate.config.PolicyCatalog.Bound(ranked, "X#m"))),
            new DecisionStats(), TestConfigs.slidegate(Map.of()),
            new dev.slidegate.core.Overrides(clock), clock,
            new dev.slidegate.metrics.WaitStats((io.micrometer.core.instrument.MeterRegistry) null),
            new dev.slidegate.metrics.UpstreamStats((io.micrometer.core.instrument.MeterRegistry) null));

    @AfterEach
    void stop() {
        store.later.shutdownNow();
    }

    @Test
    void aRankingReadsABoundedNumberOfKeysAtOnceAndServesEveryPage() {
        for (int i = 0; i < 1000; i++) {
            store.memory.acquire(policy, "hdr:c" + i, 1 + i % 10).toCompletableFuture().join();
        }
        // two viewers at once: one ranking, in progress when the second asks
        var viewer = admin.keys(policy, "", 100, true).subscribeAsCompletionStage();
        KeyList first = admin.keys(policy, "", 100, true).await().atMost(Duration.ofSeconds(30));
        assertEquals(first, viewer.toCompletableFuture().join());
        assertEquals(100, first.keys().size());
        assertTrue(!first.partial(), "every key read in time");
        assertEquals(1.0, first.keys().get(0).usage(), "the busiest first");
        assertEquals(1000, store.reads.get(), "every key read once");
        assertTrue(store.maxInFlight.get() <= KeyRankings.RANKING_IN_FLIGHT, "in flight at most " + store.maxInFlight.get());
        assertTrue(store.maxInFlight.get() > 1, "reads overlap: " + store.maxInFlight.get());

        KeyList second = admin.keys(policy, first.next(), 100, true).await().atMost(Duration.ofSeconds(30));
        assertEquals(100, second.keys().size());
        assertTrue(second.keys().get(0).usage() <= first.keys().get(99).usage());
        assertEquals(1000, store.reads.get(), "the next page and other viewers share the ranking");

        admin.reset(policy, first.keys().get(0).key()).await().atMost(Duration.ofSeconds(5));
        KeyList after = admin.keys(policy, "", 1000, true).await().atMost(Duration.ofSeconds(30));
        assertEquals(999, after.keys().size(), "a reset is seen at once");
        assertEquals(1999, store.reads.get());
    }

    @Test
    void aRankingThatRunsOutOfTimeRanksWhatItReadAndSaysSo() {
        for (int i = 0; i < 300; i++) {
            store.memory.acquire(policy, (i % 100 == 7 ? "hdr:stuck" : "hdr:c") + i, 1 + i % 10).toCompletableFuture().join();
        }
        KeyList ranked = admin.keys(policy, "", 1000, true).await().atMost(Duration.ofSeconds(30));
        assertTrue(ranked.partial(), "three keys never answer: the ranking is partial");
        assertEquals(297, ranked.keys().size(), "every key that answered is ranked");
        assertEquals(1.0, ranked.keys().get(0).usage());
    }
}
