package dev.slidegate.engine;

import static dev.slidegate.testing.Policies.policy;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.slidegate.api.Limit;
import dev.slidegate.api.Policy;
import dev.slidegate.api.Strategy;
import dev.slidegate.core.Clock;
import dev.slidegate.core.DecisionStore;
import dev.slidegate.core.UpstreamHeaders;
import dev.slidegate.memory.MemoryStore;
import dev.slidegate.metrics.UpstreamStats;
import dev.slidegate.redis.RedisLayout;
import dev.slidegate.redis.RedisStore;
import dev.slidegate.testing.ForwardingStore;
import dev.slidegate.testing.RedisClients;
import dev.slidegate.testing.RedisServer;
import dev.slidegate.testing.Resp;

/**
 * Limits an upstream publishes reach the whole fleet through the store (issue 39): two {@link Upstreams}, each with its
 * own {@link RedisStore} on one real Redis, are two instances; what one learns from a response, the other paces at from
 * its next call after its refresh, without a response of its own.
 */
class LearnedLimitsSharingTest {

    private static final long SECOND = 1_000_000_000L;
    private static RedisServer server;
    private static RedisClients clientsA;
    private static RedisClients clientsB;
    private static RedisStore storeA;
    private static RedisStore storeB;
    private static final AtomicInteger KEYS = new AtomicInteger();

    @BeforeAll
    static void start() {
        server = RedisServer.start();
        clientsA = new RedisClients(server);
        clientsB = new RedisClients(server);
        storeA = new RedisStore(clientsA.dataSource(), Duration.ofSeconds(5));
        storeB = new RedisStore(clientsB.dataSource(), Duration.ofSeconds(5));
    }

    @AfterAll
    static void stop() {
        clientsA.close();
        clientsB.close();
        server.close();
    }

    private static Upstreams instance(DecisionStore store, long refreshNanos) {
        return new Upstreams(store, null, new UpstreamStats((io.micrometer.core.instrument.MeterRegistry) null),
                UpstreamHeaders.Form.all(), 50_000, 1_000_000, 300_000_000, 10_000, false, refreshNanos,
                dev.slidegate.core.Clock.system());
    }

    private static void respond(Upstreams u, Policy p, String key, String limit) {
        Map<String, List<String>> headers = Map.of("x-ratelimit-limit", List.of(limit), "x-ratelimit-remaining",
                List.of("3"));
        u.learn(p, key, 200, name -> headers.get(name.toLowerCase())).toCompletableFuture().join();
    }

    private static void refreshed(Upstreams u, Policy p, String key) {
        CompletionStage<Void> read = u.refresh(p, key);
        if (read != null) {
            read.toCompletableFuture().join();
        }
    }

    private static int pacedAt(Upstreams u, Policy p, String key) {
        return u.paced(p, key).limits().get(0).permits();
    }

    @Test
    void aLimitOneInstanceLearnsPacesEveryInstanceFromItsNextCall() {
        Policy p = policy("shared", Strategy.FIXED_WINDOW, false, "30/1s");
        String key = "client:partner" + KEYS.incrementAndGet();
        Upstreams a = instance(storeA, 1);
        Upstreams b = instance(storeB, 1);
        refreshed(b, p, key);
        assertEquals(30, pacedAt(b, p, key), "nothing learned yet");

        respond(a, p, key, "12");
        assertEquals(12, pacedAt(a, p, key), "the instance that read the response");
        assertEquals(30, pacedAt(b, p, key), "the other one before its next read");
        refreshed(b, p, key);
        assertEquals(12, pacedAt(b, p, key), "the other one after it, with no response of its own");

        respond(a, p, key, "30"); // the upstream publishes its limit no lower than configured again
        refreshed(b, p, key);
        assertEquals(30, pacedAt(b, p, key), "restored fleet-wide");
        assertEquals(30, pacedAt(a, p, key));
    }

    @Test
    void aRefreshReadsTheStoreAtMostOncePerIntervalPerKey() {
        Policy p = policy("seldom", Strategy.FIXED_WINDOW, false, "30/1s");
        String key = "client:partner" + KEYS.incrementAndGet();
        CountingStore counting = new CountingStore(storeB);
        Upstreams b = instance(counting, 3600 * SECOND);
        List<CompletionStage<Void>> concurrent = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            concurrent.add(b.refresh(p, key));
        }
        concurrent.stream().filter(s -> s != null).forEach(s -> s.toCompletableFuture().join());
        assertEquals(1, counting.reads.get(), "twenty calls at once, one read");
        respond(instance(storeA, 1), p, key, "12");
        assertNull(b.refresh(p, key), "read within the refresh: nothing to wait for");
        assertEquals(30, pacedAt(b, p, key), "not read again within its refresh");
        assertEquals(1, counting.reads.get());
    }

    // a call placed ahead by an instance that knows nothing its upstream published reads what the fleet learned before it
    // waits (UpstreamStage.placedAhead): one read for the calls placed while it is under way, none for a call asked before
    // a read that came after it, none once the instance knows what the upstream published
    @Test
    void callsPlacedAheadShareOneReadOfWhatTheFleetLearned() {
        Policy p = policy("ahead", Strategy.FIXED_WINDOW, false, "30/1s");
        String key = "client:partner" + KEYS.incrementAndGet();
        String other = "client:partner" + KEYS.incrementAndGet();
        CountingStore counting = new CountingStore(storeB);
        Upstreams b = instance(counting, 3600 * SECOND);
        refreshed(b, p, key); // nothing learned yet, and not read again within the hour
        long asked = System.nanoTime();
        respond(instance(storeA, 1), p, key, "12"); // another instance hears the quota
        List<CompletionStage<Void>> placed = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            placed.add(b.readUnlearned(p, key, asked));
        }
        placed.stream().filter(s -> s != null).forEach(s -> s.toCompletableFuture().join());
        assertEquals(2, counting.reads.get(), "twenty calls placed ahead at once, one read");
        assertEquals(12, pacedAt(b, p, key), "and the quota the other instance heard");
        assertNull(b.readUnlearned(p, key, System.nanoTime()), "known now: nothing read");
        long earlier = System.nanoTime();
        refreshed(b, p, other);
        assertNull(b.readUnlearned(p, other, earlier), "read after the call was asked: not again");
        assertEquals(3, counting.reads.get());
    }

    @Test
    void limitsInTheStoreThatWouldRaiseWhatIsConfiguredAreIgnored() throws Exception {
        Policy p = policy("raised", Strategy.FIXED_WINDOW, false, "30/1s");
        String key = "client:partner" + KEYS.incrementAndGet();
        String stored = RedisLayout.keyPrefix(p, key) + ":up";
        try (Resp resp = server.connect()) {
            for (String value : new String[] { "3000/1000000", "12/60000000", "not limits", "12/1000000,5/1000000",
                    "12/1000000,100/60000000" }) {
                resp.call("SET", stored, value);
                Upstreams b = instance(storeB, 1);
                refreshed(b, p, key);
                int at = pacedAt(b, p, key);
                assertEquals(value.equals("12/1000000,100/60000000") ? 12 : 30, at, value + ": paced at");
            }
        }
    }

    @Test
    void theInProcessStoreKeepsWhatWasLearnedForItsOwnReads() {
        MemoryStore memory = new MemoryStore(Clock.system(), 100);
        Policy p = policy("alone", Strategy.SLIDING_LOG, false, "30/1s");
        Upstreams one = instance(memory, 1);
        respond(one, p, "client:x", "7");
        assertEquals(List.of(new Limit(7, 1_000_000)), memory.learned(p, "client:x").toCompletableFuture().join());
        Upstreams restarted = instance(memory, 1);
        assertNull(restarted.refresh(p, "client:x"), "an in-process read completes at once");
        assertEquals(7, pacedAt(restarted, p, "client:x"));
    }

    /** A store that counts the reads of learned limits. */
    private static final class CountingStore extends ForwardingStore {
        final AtomicInteger reads = new AtomicInteger();

        CountingStore(DecisionStore delegate) {
            super(delegate);
        }

        @Override
        public CompletionStage<List<Limit>> learned(Policy policy, String key) {
            reads.incrementAndGet();
            return delegate.learned(policy, key);
        }
    }
}
