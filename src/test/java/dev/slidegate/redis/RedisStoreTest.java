package dev.slidegate.redis;

import static dev.slidegate.testing.Policies.policy;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Limit;
import dev.slidegate.api.Policy;
import dev.slidegate.api.Strategy;
import dev.slidegate.core.LimiterStore;
import dev.slidegate.testing.RedisClients;
import dev.slidegate.testing.RedisServer;
import dev.slidegate.testing.Resp;

/** What only the Redis store can get wrong: concurrency on one key, unique members, TTLs, NOSCRIPT, keys. */
class RedisStoreTest {

    private static RedisServer server;
    private static RedisClients clients;
    private static RedisStore store;
    private static Resp resp;

    @BeforeAll
    static void start() {
        server = RedisServer.start();
        clients = new RedisClients(server);
        store = new RedisStore(clients.dataSource(), Duration.ofSeconds(5));
        resp = server.connect();
    }

    @AfterAll
    static void stop() {
        resp.close();
        clients.close();
        server.close();
    }

    // a test that moves Slidegate's clock ahead (the test kit's TestClock) moves the windows kept in Redis as far: every
    // script reads the server's TIME plus the distance, so a window refills without waiting for the server's clock
    @Test
    void aClockMovedAheadMovesTheWindowsKeptInRedisAsFar() {
        java.util.concurrent.atomic.AtomicLong ahead = new java.util.concurrent.atomic.AtomicLong();
        dev.slidegate.core.Clock moved = new dev.slidegate.testing.MovedClock(ahead);
        RedisStore s = new RedisStore(clients.dataSource(), RedisNodes.single(clients.dataSource()),
                RedisStore.Options.of(Duration.ofSeconds(5)).withClock(moved));
        for (Policy p : List.of(
                new Policy("ahead-log", List.of(Limit.parse("2/1m")), Strategy.SLIDING_LOG, "ip", false),
                new Policy("ahead-day", List.of(Limit.parse("2/day")), Strategy.FIXED_WINDOW, "ip", false))) {
            String key = "k-" + System.nanoTime();
            assertTrue(s.acquire(p, key, 1).toCompletableFuture().join().allowed());
            assertTrue(s.acquire(p, key, 1).toCompletableFuture().join().allowed());
            Decision full = s.acquire(p, key, 1).toCompletableFuture().join();
            assertTrue(!full.allowed(), p.name() + " refuses its third call: " + full);
            long window = p.name().equals("ahead-day") ? 86_400_000_000L : 60_000_000L;
            ahead.addAndGet(window + 1_000);
            Decision after = s.acquire(p, key, 1).toCompletableFuture().join();
            assertTrue(after.allowed(), p.name() + " refills once the clock moved a window ahead: " + after);
            List<?> time = (List<?>) resp.call("TIME");
            long serverNow = Long.parseLong(time.get(0).toString()) * 1_000_000 + Long.parseLong(time.get(1).toString());
            assertTrue(Math.abs(after.atMicros() - (serverNow + ahead.get())) < 5_000_000,
                    "the decision's instant is the server's time moved as far: " + after.atMicros() + " vs " + serverNow);
        }
        s.close();
    }

    private static Decision call(Policy p, String key) {
        return store.acquire(p, key, 1).toCompletableFuture().join();
    }

    // every instant of a decision is Redis's TIME, never the application's clock: a decision asked of a
    // frozen Redis is stamped when Redis runs again, half a second after it was asked
    @Test
    void decisionsTakeTheirTimeFromRedisNotFromTheApplication() throws Exception {
        Policy p = policy("redis-time", Strategy.SLIDING_LOG, false, "5/1m");
        call(p, "warm"); // connected, script loaded
        CompletableFuture<Decision> asked;
        long askedAt;
        long thawedAt;
        server.signal("STOP");
        try {
            askedAt = System.currentTimeMillis() * 1000;
            asked = store.acquire(p, "k", 1).toCompletableFuture();
            Thread.sleep(500);
        } finally {
            thawedAt = System.currentTimeMillis() * 1000;
            server.signal("CONT");
        }
        Decision d = asked.join();
        assertTrue(d.atMicros() >= thawedAt - 20_000,
                "decided at " + (d.atMicros() - askedAt) / 1000 + " ms after it was asked; Redis ran again "
                        + (thawedAt - askedAt) / 1000 + " ms after");
    }

    // issue 56: the service hands the script the calendar periods around its own clock, and the script refused a
    // server time outside them ("the calendar periods given do not hold the server time"): a call that reached a frozen
    // Redis more than three periods later failed instead of being decided. Now the periods are taken again around the
    // server's time it said, and the call is decided in the period the server's clock is in
    @Test
    void aCalendarCallThatReachesRedisPeriodsLateIsDecidedByTheServersClock() throws Exception {
        dev.slidegate.api.Periods short100 = new dev.slidegate.testing.IrregularPeriods(0, new long[] { 100_000 },
                "p100");
        Policy p = new Policy("late-periods", List.of(new dev.slidegate.api.Limit(3, short100)), Strategy.FIXED_WINDOW, "ip",
                false);
        call(p, "warm"); // connected, script loaded
        CompletableFuture<Decision> asked;
        long thawedAt;
        server.signal("STOP");
        try {
            asked = store.acquire(p, "k", 1).toCompletableFuture();
            Thread.sleep(700); // seven periods
        } finally {
            thawedAt = System.currentTimeMillis() * 1000;
            server.signal("CONT");
        }
        Decision d = asked.get(10, java.util.concurrent.TimeUnit.SECONDS);
        assertTrue(d.allowed(), d.toString());
        assertTrue(d.atMicros() >= thawedAt - 20_000, "decided in the server's period, not the one it was asked in");
        assertEquals(2, d.states().get(0).remaining());
    }

    // issue 56: a Redis wiped behind Slidegate's back (FLUSHALL) drops what every instance remembers, even when no reset
    // was ever made: before, the resets key did not exist until a first reset, so a wipe changed nothing an instance read
    @Test
    void aWipedRedisIsSeenEvenBeforeAnyReset() throws Exception {
        try (RedisServer own = RedisServer.start(); RedisClients c = new RedisClients(own); Resp r = own.connect()) {
            RedisStore s = new RedisStore(c.dataSource(), Duration.ofSeconds(5));
            java.util.concurrent.atomic.AtomicInteger changes = new java.util.concurrent.atomic.AtomicInteger();
            try (AutoCloseable watch = s.watchResets(c.vertx().getDelegate(), Duration.ofMillis(20),
                    changes::incrementAndGet)) {
                Thread.sleep(200); // ten reads: nothing changed
                assertEquals(0, changes.get(), "no change seen while nothing changed");
                r.call("FLUSHALL");
                dev.slidegate.testing.Eventually.eventually(Duration.ofSeconds(5), changes::get, n -> n > 0,
                        "the wipe seen");
                int seen = changes.get();
                Thread.sleep(200);
                int settled = changes.get();
                Thread.sleep(200);
                assertEquals(settled, changes.get(), "quiet again after the wipe (seen " + seen + " then " + settled + ")");
                r.call("FLUSHALL");
                dev.slidegate.testing.Eventually.eventually(Duration.ofSeconds(5), changes::get, n -> n > settled,
                        "a second wipe seen too");
            }
        }
    }

    // 200 calls in flight at once on one key, N = 100: exactly 100 admitted, and the sorted set holds
    // exactly 100 members (none collapsed although many share a microsecond on the client side)
    @Test
    void sameInstantBurstAdmitsExactlyN() {
        Policy p = policy("burst", Strategy.SLIDING_LOG, false, "100/1m");
        List<CompletableFuture<Decision>> calls = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            calls.add(store.acquire(p, "hot", 1).toCompletableFuture());
        }
        long admitted = calls.stream().map(CompletableFuture::join).filter(Decision::allowed).count();
        assertEquals(100, admitted);
        assertEquals(100L, resp.number("ZCOUNT", "slidegate:{burst:hot}:log", "(0", "+inf"));
    }

    // cost 3 records three members; a refused call records nothing; count-rejected records the attempt
    @Test
    void membersAreOnePerPermit() {
        Policy p = policy("members", Strategy.SLIDING_LOG, false, "5/1m");
        assertTrue(store.acquire(p, "a", 3).toCompletableFuture().join().allowed());
        assertEquals(3L, resp.number("ZCOUNT", "slidegate:{members:a}:log", "(0", "+inf"));
        assertFalse(store.acquire(p, "a", 3).toCompletableFuture().join().allowed());
        assertEquals(3L, resp.number("ZCOUNT", "slidegate:{members:a}:log", "(0", "+inf"));
        Policy counting = policy("members-cr", Strategy.SLIDING_LOG, true, "2/1m");
        for (int i = 0; i < 5; i++) {
            call(counting, "a");
        }
        assertEquals(2L, resp.number("ZCOUNT", "slidegate:{members-cr:a}:log", "(0", "+inf"), "capped at the largest N");
    }

    // the log expires with the longest window, so idle keys disappear
    @Test
    void slidingLogKeyExpiresAfterTheLongestWindow() {
        Policy p = policy("ttl-log", Strategy.SLIDING_LOG, false, "5/2s", "10/1m");
        call(p, "a");
        long pttl = resp.number("PTTL", "slidegate:{ttl-log:a}:log");
        assertTrue(pttl > 59_000 && pttl <= 60_001, "PTTL " + pttl);
    }

    // fixed window: one hash per (policy, key), a slot per window; its sampled PTTL is never -1 (no key
    // without expiry) and never above the longest window, and while neither slot's window index moves
    // (fields i:<W>) it only goes down: later calls never extend a window
    @Test
    void fixedWindowTtlIsSetOnceAndNeverExceedsTheWindow() throws InterruptedException {
        Policy p = policy("ttl-fw", Strategy.FIXED_WINDOW, false, "1000/300ms", "1000/1s");
        String key = "slidegate:{ttl-fw:a}:fw";
        List<Object> previousIndexes = null;
        long previousTtl = Long.MAX_VALUE;
        int sameWindowSamples = 0;
        for (int i = 0; i < 60; i++) {
            call(p, "a");
            List<Object> indexes = List.of(String.valueOf(resp.call("HGET", key, "i:300000")),
                    String.valueOf(resp.call("HGET", key, "i:1000000")));
            long ttl = resp.number("PTTL", key);
            // -2: expired between the call and the probe; 0: less than a millisecond left
            assertTrue(ttl == -2 || (ttl >= 0 && ttl <= 1000), "PTTL " + ttl);
            if (indexes.equals(previousIndexes) && ttl >= 0) {
                assertTrue(ttl <= previousTtl, "the expiry moved from " + previousTtl + " to " + ttl + " ms in windows "
                        + indexes);
                sameWindowSamples++;
            }
            previousIndexes = indexes;
            previousTtl = ttl;
            Thread.sleep(25);
        }
        assertTrue(sameWindowSamples > 10, "too few samples within one window: " + sameWindowSamples);
    }

    // a slow client (3 calls every 460 ms, limit 5/400ms) is never locked out, whichever strategy; the
    // pace is longer than W plus one cell (440 ms), the most a sliding counter looks back. One client per
    // strategy, each on a policy of its own, all four paced together
    @Test
    void slowClientIsNeverLockedOut() throws InterruptedException {
        List<Policy> policies = new ArrayList<>();
        for (Strategy s : Strategy.values()) {
            policies.add(policy("slow-" + s.configName(), s, false, "5/400ms"));
        }
        for (int window = 0; window < 4; window++) {
            for (Policy p : policies) {
                for (int i = 0; i < 3; i++) {
                    assertTrue(call(p, "a").allowed(), p.strategy() + " window " + window);
                }
            }
            Thread.sleep(460);
        }
    }

    // after SCRIPT FLUSH the next call recovers through EVAL, and is charged exactly once
    @Test
    void noScriptIsRecoveredAndChargesOnce() {
        Policy p = policy("noscript", Strategy.SLIDING_LOG, false, "5/1m");
        call(p, "a");
        assertEquals("OK", resp.call("SCRIPT", "FLUSH"));
        Decision d = call(p, "a");
        assertTrue(d.allowed());
        assertEquals(3, d.remaining());
        assertEquals(2L, resp.number("ZCOUNT", "slidegate:{noscript:a}:log", "(0", "+inf"));
        Policy f = policy("noscript-fw", Strategy.FIXED_WINDOW, false, "5/1m");
        call(f, "a");
        resp.call("SCRIPT", "FLUSH");
        assertEquals(3, call(f, "a").remaining());
    }

    // a read (admin view) writes nothing: an unknown key is not created, a known one is left as it was
    @Test
    void peeksWriteNothing() {
        for (Strategy s : Strategy.values()) {
            Policy p = policy("peek-" + s.configName(), s, false, "5/1m", "50/1h");
            store.peek(p, "nobody").toCompletableFuture().join();
            for (String k : RedisLayout.keys(p, "nobody")) {
                assertEquals(0L, resp.number("EXISTS", k), s + " created " + k);
            }
            call(p, "somebody");
            List<Object> before = RedisLayout.keys(p, "somebody").stream().map(k -> resp.call("DUMP", k)).toList();
            assertEquals(4, store.peek(p, "somebody").toCompletableFuture().join().remaining());
            List<Object> after = RedisLayout.keys(p, "somebody").stream().map(k -> resp.call("DUMP", k)).toList();
            assertEquals(before, after, s + " changed its keys on a read");
        }
    }

    // one key per (policy, caller key), whatever the limits (a change of limits, a reset and a listing
    // all see everything counted), carrying the hash tag that puts it in one cluster slot
    @Test
    void keysShareOneHashTag() {
        for (Strategy s : Strategy.values()) {
            Policy p = policy("tags", s, false, "5/1s", "50/1m", "500/1h");
            Policy other = new Policy("tags", List.of(Limit.parse("7/10s")), s, "ip", false);
            List<String> keys = RedisLayout.keys(p, "ip:10.0.0.1");
            assertEquals(1, keys.size(), s + ": " + keys);
            assertEquals(keys, RedisLayout.keys(other, "ip:10.0.0.1"), s + ": the same key under other limits");
        }
        Policy p = policy("tags", Strategy.FIXED_WINDOW, false, "5/1s", "50/1m", "500/1h");
        List<String> keys = RedisLayout.keys(p, "ip:10.0.0.1");
        assertEquals(List.of("slidegate:{tags:ip:10.0.0.1}:fw"), keys);
        for (String k : keys) { // Redis Cluster hashes only what lies between the first '{' and the next '}'
            int open = k.indexOf('{');
            assertEquals("tags:ip:10.0.0.1", k.substring(open + 1, k.indexOf('}', open)));
        }
        assertThrows(IllegalArgumentException.class, () -> RedisLayout.keys(p, "a}b"));
    }

    // Redis errors are never read as "allowed": the stage fails
    @Test
    void redisErrorsFailTheDecision() {
        Policy p = policy("wrongtype", Strategy.SLIDING_LOG, false, "5/1m");
        resp.call("SET", "slidegate:{wrongtype:a}:log", "not a sorted set");
        CompletionException e = assertThrows(CompletionException.class, () -> call(p, "a"));
        assertTrue(e.getCause() instanceof RedisStoreException, e.toString());
        assertTrue(e.getCause().getMessage().contains("WRONGTYPE"), e.getCause().getMessage());
    }

    // a server that never answers: the decision fails after the timeout instead of hanging
    @Test
    void aHungServerTimesOut() throws Exception {
        try (RedisServer frozen = RedisServer.start(); RedisClients c = new RedisClients(frozen)) {
            RedisStore s = new RedisStore(c.dataSource(), Duration.ofMillis(300));
            Policy p = policy("frozen", Strategy.SLIDING_LOG, false, "5/1m");
            assertTrue(s.acquire(p, "a", 1).toCompletableFuture().join().allowed());
            frozen.signal("STOP");
            try {
                CompletionException e = assertThrows(CompletionException.class,
                        () -> s.acquire(p, "a", 1).toCompletableFuture().join());
                assertTrue(e.getCause().getMessage().contains("answered nothing for"), e.getCause().getMessage());
            } finally {
                frozen.signal("CONT");
            }
        }
    }

    // a caller counted only in a longer fixed window (its shorter window ended) is still listed and counted by the
    // admin views: one key per (policy, key) holds every window
    @Test
    void aFixedWindowCallerStaysListedWhileALongerWindowCountsIt() throws Exception {
        Policy p = policy("fw-listed", Strategy.FIXED_WINDOW, false, "2/300ms", "5/1h");
        assertTrue(call(p, "a").allowed());
        Thread.sleep(700); // the 300 ms window has ended, its counter with it; the hour's still counts 1
        LimiterStore.KeyPage page = store.keys(p, "", 10).toCompletableFuture().join();
        assertEquals(List.of("a"), page.keys());
        assertEquals(1L, store.count(p).toCompletableFuture().join());
        assertEquals(4, store.peek(p, "a").toCompletableFuture().join().states().get(1).remaining());
        assertEquals(2, store.peek(p, "a").toCompletableFuture().join().states().get(0).remaining(),
                "the ended window reads as empty");
        assertTrue(call(p, "a").allowed());
        assertEquals(3, store.peek(p, "a").toCompletableFuture().join().states().get(1).remaining());
    }

    // late is not down: a Redis kept busy by scripts of 100 ms (answers come in bursts, up to 100 ms
    // apart, longer than the 50 ms budget) decides every call once it has been seen answering that
    // slowly, where a fixed budget would fail them all; frozen afterwards, it is still found out by the
    // silence rule (not by the late limit)
    @Test
    void aBusyRedisIsLateNotDown() throws Exception {
        try (RedisServer own = RedisServer.start(); RedisClients c = new RedisClients(own); Resp busy = own.connect()) {
            RedisStore s = new RedisStore(c.dataSource(), Duration.ofMillis(50));
            Policy p = policy("busy", Strategy.SLIDING_LOG, false, "1000/1m");
            assertEquals(null, s.warmUp(Duration.ofSeconds(5)), "as at start-up");
            assertTrue(s.acquire(p, "warm", 1).toCompletableFuture().join().allowed());
            java.util.concurrent.atomic.AtomicBoolean running = new java.util.concurrent.atomic.AtomicBoolean(true);
            Thread hog = new Thread(() -> {
                while (running.get()) {
                    busy.call("EVAL", "local t0 = redis.call('TIME') local s = t0[1] * 1000000 + t0[2] "
                            + "repeat local t = redis.call('TIME') until t[1] * 1000000 + t[2] - s >= 100000 return 1", "0");
                    try {
                        Thread.sleep(10);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
            hog.start();
            int failedLater = 0;
            List<String> why = new ArrayList<>();
            // "later" is once the store has heard the busy Redis answer late: a call that succeeded after longer
            // than the budget, or any success after a failure (the failed call's answer came first). Sequential calls
            // can all fit in one of the hog's 10 ms pauses, so no call index marks it, and calls that fail before any
            // late answer arrived (two in a row while one script runs) have heard nothing yet
            boolean failedBefore = false;
            boolean heardLate = false;
            try {
                for (int i = 0; i < 40; i++) {
                    long start = System.nanoTime();
                    try {
                        assertTrue(s.acquire(p, "k", 1).toCompletableFuture().join().allowed());
                        heardLate |= failedBefore || System.nanoTime() - start > 50_000_000L;
                    } catch (CompletionException e) {
                        why.add(e.getCause().getMessage());
                        failedLater += heardLate ? 1 : 0;
                        failedBefore = true;
                    }
                }
            } finally {
                running.set(false);
                hog.join();
            }
            assertEquals(0, failedLater, "calls to a busy Redis failed: " + why);
            own.signal("STOP");
            try {
                CompletionException e = assertThrows(CompletionException.class,
                        () -> s.acquire(p, "k", 1).toCompletableFuture().join());
                assertTrue(e.getCause().getMessage().contains("answered nothing"), e.getCause().getMessage());
            } finally {
                own.signal("CONT");
            }
        }
    }

    // decisions made on an event loop share that loop's one connection, however many are in flight
    @Test
    void decisionsOnAnEventLoopShareOneConnection() throws Exception {
        try (RedisServer own = RedisServer.start(); RedisClients c = new RedisClients(own); Resp admin = own.connect()) {
            RedisStore s = new RedisStore(c.dataSource(), Duration.ofSeconds(5));
            Policy p = policy("pinned", Strategy.SLIDING_LOG, false, "1000/1m");
            List<CompletableFuture<Decision>> calls = onEventLoop(c, () -> {
                List<CompletableFuture<Decision>> started = new ArrayList<>();
                for (int i = 0; i < 50; i++) {
                    started.add(s.acquire(p, "k" + i, 1).toCompletableFuture());
                }
                return started;
            });
            for (CompletableFuture<Decision> f : calls) {
                assertTrue(f.join().allowed());
            }
            // our admin connection and the event loop's: the pool would have opened up to 16 for 50 calls in flight
            assertEquals(2, connectedClients(admin));
        }
    }

    // the decisions of one event-loop turn share calls to Redis, and each is decided exactly as it
    // would have been alone: the same random sequence of (strategy, key, cost), made in one turn on
    // some keys and one call at a time on others, gets the same answers; a decision that fails (a key
    // of the wrong type) fails alone; after SCRIPT FLUSH the batch is run again by EVAL, charged once
    @Test
    void decisionsOfOneTurnShareOneCallAndAreDecidedAsIfAlone() throws Exception {
        try (RedisServer own = RedisServer.start(); RedisClients c = new RedisClients(own); Resp admin = own.connect()) {
            RedisStore s = new RedisStore(c.dataSource(), Duration.ofSeconds(5));
            // windows of hours, so the second run, a moment later, finds the same windows and refills
            List<Policy> policies = List.of(policy("b-log", Strategy.SLIDING_LOG, false, "4/1h", "6/1d"),
                    policy("b-fw", Strategy.FIXED_WINDOW, false, "4/1h", "6/1d"),
                    policy("b-sc", Strategy.SLIDING_COUNTER, true, "4/1h"),
                    policy("b-tb", Strategy.TOKEN_BUCKET, false, "4/1h"));
            java.util.Random random = new java.util.Random(17);
            record Call(Policy policy, String key, int cost) {
            }
            List<Call> sequence = new ArrayList<>();
            for (int i = 0; i < 120; i++) {
                sequence.add(new Call(policies.get(random.nextInt(policies.size())), "k" + random.nextInt(3),
                        1 + random.nextInt(2)));
            }
            Policy broken = policy("b-wrongtype", Strategy.SLIDING_LOG, false, "5/1m");
            admin.call("SET", "slidegate:{b-wrongtype:t:a}:log", "not a sorted set");
            admin.call("CONFIG", "RESETSTAT");
            List<CompletableFuture<Decision>> batched = onEventLoop(c, () -> {
                List<CompletableFuture<Decision>> started = new ArrayList<>();
                for (int i = 0; i < sequence.size(); i++) {
                    Call call = sequence.get(i);
                    started.add(s.acquire(call.policy(), "t:" + call.key(), call.cost()).toCompletableFuture());
                    if (i == 60) {
                        started.add(s.acquire(broken, "t:a", 1).toCompletableFuture());
                    }
                }
                return started;
            });
            CompletionException failed = assertThrows(CompletionException.class, () -> batched.remove(61).join());
            assertTrue(failed.getCause().getMessage().contains("WRONGTYPE"), failed.getCause().getMessage());
            String stats = String.valueOf(admin.call("INFO", "commandstats"));
            int calls = (121 + RedisStore.DEFAULT_BATCH - 1) / RedisStore.DEFAULT_BATCH;
            assertTrue(stats.contains("cmdstat_evalsha:calls=" + calls + ","),
                    calls + " calls for the turn's 121 decisions, " + RedisStore.DEFAULT_BATCH + " at most in each: " + stats);
            for (int i = 0; i < sequence.size(); i++) {
                Call call = sequence.get(i);
                Decision together = batched.get(i).join();
                Decision alone = s.acquire(call.policy(), "u:" + call.key(), call.cost()).toCompletableFuture().join();
                String what = "call " + i + " " + call;
                assertEquals(alone.allowed(), together.allowed(), what);
                assertEquals(alone.trippedIndex(), together.trippedIndex(), what);
                assertEquals(alone.states().stream().map(st -> st.remaining()).toList(),
                        together.states().stream().map(st -> st.remaining()).toList(), what);
            }
            assertTrue(batched.stream().anyMatch(f -> !f.join().allowed()), "the sequence reached the limits");

            // after SCRIPT FLUSH: one NOSCRIPT, one EVAL of the batch, each decision charged once
            admin.call("SCRIPT", "FLUSH");
            admin.call("CONFIG", "RESETSTAT");
            Policy fresh = policy("b-flushed", Strategy.SLIDING_LOG, false, "10/1m");
            List<CompletableFuture<Decision>> again = onEventLoop(c, () -> List.of(
                    s.acquire(fresh, "a", 1).toCompletableFuture(), s.acquire(fresh, "a", 1).toCompletableFuture(),
                    s.acquire(fresh, "b", 1).toCompletableFuture()));
            assertEquals(List.of(9L, 8L, 9L), again.stream().map(f -> f.join().remaining()).toList());
            assertEquals(2L, admin.number("ZCOUNT", "slidegate:{b-flushed:a}:log", "(0", "+inf"));
            stats = String.valueOf(admin.call("INFO", "commandstats"));
            assertTrue(stats.contains("cmdstat_eval:calls=1,"), stats);
        }
    }

    // closing the store ends its deadline thread (nothing of a closed store keeps running)
    @Test
    void closingTheStoreEndsItsDeadlineThread() throws Exception {
        try (RedisServer own = RedisServer.start(); RedisClients c = new RedisClients(own)) {
            RedisStore s = new RedisStore(c.dataSource(), Duration.ofSeconds(5));
            Policy p = policy("closing", Strategy.SLIDING_LOG, false, "5/1m");
            assertTrue(s.acquire(p, "a", 1).toCompletableFuture().join().allowed());
            assertFalse(s.terminated());
            s.close();
            long until = System.nanoTime() + 10_000_000_000L;
            while (!s.terminated() && System.nanoTime() < until) {
                Thread.sleep(20);
            }
            assertTrue(s.terminated(), "the deadline thread outlived its store");
        }
    }

    // on a cluster, start-up loads every script on every master too: no first decision pays a NOSCRIPT and an EVAL (a cold
    // cluster on a loaded machine once answered a first decision after the budget, and its fail mode decided)
    @Test
    void warmUpLoadsTheScriptsOnEveryMasterOfACluster() throws Exception {
        try (dev.slidegate.testing.RedisCluster cluster = dev.slidegate.testing.RedisCluster.start();
                RedisClients c = new RedisClients(cluster)) {
            RedisStore s = new RedisStore(c.dataSource(), c.nodes(), RedisStore.Options.of(Duration.ofSeconds(5)));
            for (RedisServer master : cluster.masters()) {
                try (Resp r = master.connect()) {
                    assertEquals(0L, resp(r, "SCRIPT", "EXISTS", DecisionScripts.SLIDING_LOG.sha1()), "a new cluster");
                }
            }
            assertEquals(null, s.warmUp(Duration.ofSeconds(5)), "as at start-up");
            for (RedisServer master : cluster.masters()) {
                try (Resp r = master.connect()) {
                    for (LuaScript script : DecisionScripts.ALL) {
                        assertEquals(1L, resp(r, "SCRIPT", "EXISTS", script.sha1()), script.name() + " on " + master.port());
                    }
                }
            }
            s.close();
        }
    }

    // start-up opens every event loop's own connection, so no request waits for
    // a connection being set up; decisions on an event loop then open none
    @Test
    void warmUpOpensEveryEventLoopsConnection() throws Exception {
        try (RedisServer own = RedisServer.start(); RedisClients c = new RedisClients(own); Resp admin = own.connect()) {
            RedisStore s = new RedisStore(c.dataSource(), Duration.ofSeconds(5));
            assertEquals(null, s.warmUp(Duration.ofSeconds(5), c.vertx().getDelegate()));
            int loops = 0;
            for (var loop : ((io.vertx.core.impl.VertxInternal) c.vertx().getDelegate()).getEventLoopGroup()) {
                loops++;
            }
            assertTrue(loops >= 1);
            assertEquals(1 + loops, connectedClients(admin),
                    "ours and one per event loop (the pool's first one became one of them)");
            assertEquals(1L, resp(admin, "SCRIPT", "EXISTS", DecisionScripts.SLIDING_LOG.sha1()), "scripts loaded");
            Policy p = policy("warm", Strategy.SLIDING_LOG, false, "1000/1m");
            for (int i = 0; i < 2 * loops; i++) {
                assertTrue(onEventLoop(c, () -> s.acquire(p, "k", 1).toCompletableFuture()).join().allowed());
            }
            assertEquals(1 + loops, connectedClients(admin), "a decision opened a connection");
        }
    }

    private static long resp(Resp admin, String... args) {
        Object r = admin.call(args);
        return r instanceof List<?> l ? ((Number) l.get(0)).longValue() : ((Number) r).longValue();
    }

    // a restarted server: the event loop gives up its dead connection and the next decisions use a new one
    @Test
    void decisionsOnAnEventLoopSurviveARestartOfRedis() throws Exception {
        RedisServer first = RedisServer.start();
        int port = first.port();
        RedisServer second = null;
        try (RedisClients c = new RedisClients(first)) {
            RedisStore s = new RedisStore(c.dataSource(), Duration.ofSeconds(2));
            Policy p = policy("restart", Strategy.SLIDING_LOG, false, "3/1m");
            assertTrue(onEventLoop(c, () -> s.acquire(p, "a", 1).toCompletableFuture()).join().allowed());
            first.close();
            second = RedisServer.startOn(port);
            Decision after = null;
            for (int attempt = 0; attempt < 100 && after == null; attempt++) {
                try {
                    after = onEventLoop(c, () -> s.acquire(p, "a", 1).toCompletableFuture()).join();
                } catch (CompletionException e) {
                    assertTrue(e.getCause() instanceof RedisStoreException, e.toString());
                    Thread.sleep(20);
                }
            }
            assertTrue(after != null && after.allowed(), "no decision after the restart");
            assertEquals(2, after.states().get(0).remaining(), "the new server starts from an empty window");
        } finally {
            if (second != null) {
                second.close();
            }
        }
    }

    private static <T> T onEventLoop(RedisClients c, java.util.function.Supplier<T> work) throws Exception {
        CompletableFuture<T> result = new CompletableFuture<>();
        c.vertx().getDelegate().getOrCreateContext().runOnContext(v -> {
            try {
                result.complete(work.get());
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        });
        return result.get();
    }

    private static long connectedClients(Resp admin) {
        String info = String.valueOf(admin.call("INFO", "clients"));
        return info.lines().filter(l -> l.startsWith("connected_clients:"))
                .mapToLong(l -> Long.parseLong(l.substring(18).trim())).findFirst()
                .orElseThrow();
    }
}
