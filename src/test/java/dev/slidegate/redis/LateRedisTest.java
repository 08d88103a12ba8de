package dev.slidegate.redis;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Limit;
import dev.slidegate.api.Policy;
import dev.slidegate.api.Strategy;
import dev.slidegate.config.SlidegateConfig;
import dev.slidegate.core.Breaker;
import dev.slidegate.core.Clock;
import dev.slidegate.core.FallbackStore;
import dev.slidegate.memory.MemoryStore;
import dev.slidegate.testing.Brackets;
import dev.slidegate.testing.RedisClients;
import dev.slidegate.testing.RedisServer;
import dev.slidegate.testing.TestConfigs;

/**
 * A Redis that is late, not gone (issue 56, point 6): two instances on one Redis, with the shipped defaults (budget,
 * late limit, breaker, refusal memory), one caller alternating between them. While Redis is frozen (SIGSTOP, as a
 * {@code DEBUG SLEEP}, a snapshot's fork or a busy machine freeze it) the fail mode {@code local} decides; it starts
 * from what Redis last said was left, and what it admitted is charged to Redis when it answers again. Judged by the
 * caller's own clock: at most N admitted in any window of W. Before, each instance got a fresh N/k: 20 in 10 s admitted
 * up to 35.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LateRedisTest {

    private static final long W = 10_000_000;

    /** One instance's stack as the service builds it, with the shipped defaults: refusal memory, breaker, fail mode. */
    private static FallbackStore instance(RedisClients clients, SlidegateConfig defaults) {
        SlidegateConfig.RedisConfig r = defaults.redis();
        RedisStore redis = new RedisStore(clients.dataSource(), RedisNodes.single(clients.dataSource()),
                RedisStore.Options.of(r.timeout()).withLateLimit(r.lateLimit()).withBatchSize(r.batchSize()));
        RefusalCache refusals = new RefusalCache(redis, r.refusalCacheSize(), System::nanoTime);
        return new FallbackStore(refusals, new MemoryStore(Clock.system(), defaults.memory().maxKeys()), 2,
                new Breaker("Redis", r.failureThreshold(), r.coolDown().toNanos(), System::nanoTime));
    }

    @Test
    void aFrozenRedisChangesNoWindowOfTheFleet() throws Exception {
        runScenario(false);
    }

    // the same, frozen twice within the window: the second fail-over starts from what Redis said after the first
    @Test
    void twoStallsInOneWindowStillAdmitAtMostN() throws Exception {
        runScenario(true);
    }

    // a real outage: Redis killed, and started again empty (no persistence). While it is gone the fleet admits at most
    // what Redis last said was left (15 of 20 used: 5 more); what it admitted is charged to the new Redis, so after it
    // the fleet admits at most N less that. A window that spans the restart can hold what the dead Redis had admitted
    // too: the 2N of a store that lost its data (docs/operations.md)
    @Test
    void aKilledRedisLosesOnlyWhatItHeld() throws Exception {
        SlidegateConfig defaults = TestConfigs.slidegate(Map.of());
        Policy p = new Policy("killed", List.of(Limit.parse("20/10s")), Strategy.SLIDING_LOG, "ip", false);
        RedisServer server = RedisServer.start();
        int port = server.port();
        try (RedisClients one = new RedisClients(server); RedisClients two = new RedisClients(server)) {
            FallbackStore[] fleet = { instance(one, defaults), instance(two, defaults) };
            Brackets before = new Brackets();
            int calls = 0;
            while (before.size() < 15) {
                call(fleet[calls++ % 2], p, before);
            }
            server.signal("KILL");
            server.close();
            Brackets gone = new Brackets();
            long until = System.nanoTime() + 1_000_000_000L;
            while (System.nanoTime() < until) {
                call(fleet[calls++ % 2], p, gone);
                Thread.sleep(20);
            }
            server = RedisServer.startOn(port);
            Brackets back = new Brackets();
            until = System.nanoTime() + 1_500_000_000L;
            while (System.nanoTime() < until) {
                call(fleet[calls++ % 2], p, back);
                Thread.sleep(20);
            }
            assertTrue(gone.size() <= 5, gone.size() + " admitted while Redis was gone, with 5 left: " + timeline);
            assertTrue(gone.size() + back.size() <= 20,
                    gone.size() + " admitted while gone and " + back.size() + " after the restart: " + timeline);
            assertTrue(back.size() > 0, "the new Redis decides: " + timeline);
        } finally {
            server.close();
        }
    }

    // a test's clock stands still between its moves (the test kit's TestClock): a frozen Redis still times out, by real
    // time, and the decision fails (its fail mode decides) instead of waiting for ever; so does the wait for its late
    // answer
    @Test
    void aFrozenRedisTimesOutUnderAClockThatStandsStill() throws Exception {
        Policy p = new Policy("still", List.of(Limit.parse("20/10s")), Strategy.SLIDING_LOG, "ip", false);
        Clock still = () -> 1_767_225_600_000_000L;
        try (RedisServer server = RedisServer.start(); RedisClients clients = new RedisClients(server)) {
            RedisStore redis = new RedisStore(clients.dataSource(), RedisNodes.single(clients.dataSource()),
                    RedisStore.Options.of(java.time.Duration.ofMillis(250)).withClock(still));
            redis.acquire(p, "warm", 1).toCompletableFuture().join(); // scripts loaded, a connection open
            server.signal("STOP");
            try {
                java.util.concurrent.CompletableFuture<Decision> d = redis.acquire(p, "k", 1).toCompletableFuture();
                // a TimeoutException instead: the deadline read the clock that stands still
                java.util.concurrent.ExecutionException failed = org.junit.jupiter.api.Assertions.assertThrows(
                        java.util.concurrent.ExecutionException.class, () -> d.get(10, TimeUnit.SECONDS),
                        "a frozen Redis fails the decision");
                // its late answer is listened for a while, not for ever: none came (Redis is still frozen)
                assertTrue(failed.getCause() instanceof dev.slidegate.core.AnsweredLate, "" + failed.getCause());
                Object late = ((dev.slidegate.core.AnsweredLate) failed.getCause()).lateAnswer().toCompletableFuture()
                        .get(10, TimeUnit.SECONDS);
                assertTrue(late == null, "no late answer from a frozen Redis: " + late);
            } finally {
                server.signal("CONT");
            }
            redis.close();
        }
    }

    // a caller who may wait (a policy's max-wait) waits for a late Redis within that budget: the answer Redis gives when
    // it thaws decides, not the fail mode; a call of the same policy that may not wait fails over at the shipped budget
    @Test
    void aCallThatMayWaitWaitsForALateRedisWithinItsMaxWait() throws Exception {
        SlidegateConfig defaults = TestConfigs.slidegate(Map.of());
        Policy p = new Policy("patient", List.of(Limit.parse("20/10s")), Strategy.SLIDING_LOG, "ip", false);
        long stallNanos = 800_000_000L; // longer than the budget (250 ms), shorter than the max-wait and the late limit
        try (RedisServer server = RedisServer.start(); RedisClients clients = new RedisClients(server)) {
            FallbackStore instance = instance(clients, defaults);
            instance.acquire(p, "warm", 1).toCompletableFuture().join(); // scripts loaded, a connection open
            server.signal("STOP");
            long stopped = System.nanoTime();
            java.util.concurrent.CompletableFuture<Decision> waiting;
            Decision hasty;
            try {
                waiting = instance.acquire(p, "client:patient", 1, 1_500_000).toCompletableFuture();
                hasty = instance.acquire(p, "client:hasty", 1).toCompletableFuture().join(); // the fail mode, after the budget
                while (System.nanoTime() - stopped < stallNanos) {
                    Thread.sleep(10);
                }
                assertTrue(!waiting.isDone(), "the call that may wait 1.5 s is still waiting for Redis: " + waiting);
            } finally {
                server.signal("CONT");
            }
            Decision patient = waiting.get(5, TimeUnit.SECONDS);
            assertTrue(hasty.allowed() && hasty.fallback(), "a call that may not wait fails over: " + hasty);
            assertTrue(patient.allowed() && !patient.fallback(), "Redis decided after the stall: " + patient);
        }
    }

    // on an event loop, decisions share its connection (and one turn's share a script call): a call that may not wait
    // and times out gives that connection up, but it stays open for the waiting call's budget, whose late answer still
    // decides it
    @Test
    void aWaitingCallOnTheSameConnectionAsOneThatFailsOverStillGetsItsAnswer() throws Exception {
        SlidegateConfig defaults = TestConfigs.slidegate(Map.of());
        Policy p = new Policy("shared", List.of(Limit.parse("20/10s")), Strategy.SLIDING_LOG, "ip", false);
        try (RedisServer server = RedisServer.start(); RedisClients clients = new RedisClients(server)) {
            FallbackStore instance = instance(clients, defaults);
            io.vertx.core.Context loop = clients.vertx().getDelegate().getOrCreateContext();
            warmOn(loop, instance, p); // the event loop's own connection is open
            java.util.concurrent.CompletableFuture<Decision> patient = new java.util.concurrent.CompletableFuture<>();
            java.util.concurrent.CompletableFuture<Decision> hasty = new java.util.concurrent.CompletableFuture<>();
            server.signal("STOP");
            long stopped = System.nanoTime();
            try {
                loop.runOnContext(v -> { // one turn: both on the loop's connection
                    instance.acquire(p, "client:patient", 1, 1_500_000).whenComplete((d, e) -> complete(patient, d, e));
                    instance.acquire(p, "client:hasty", 1).whenComplete((d, e) -> complete(hasty, d, e));
                });
                Decision fellBack = hasty.get(5, TimeUnit.SECONDS);
                assertTrue(fellBack.fallback(), "the call that may not wait fails over: " + fellBack);
                while (System.nanoTime() - stopped < 800_000_000L) {
                    Thread.sleep(10);
                }
                assertTrue(!patient.isDone(), "the waiting call still waits: " + patient);
            } finally {
                server.signal("CONT");
            }
            Decision d = patient.get(5, TimeUnit.SECONDS);
            assertTrue(d.allowed() && !d.fallback(), "the waiting call got Redis's answer on the given-up connection: " + d);
        }
    }

    // a Redis that answers a little after the budget (a cold cluster, a loaded machine) had charged the call the fail
    // mode admitted: its late answer says so, and that permit is not charged to Redis a second time when the caller's
    // next call comes. Before, the caller's second call of two an hour was refused (EveryStrategyIT on a cluster, once)
    @Test
    void aPermitRedisChargedInALateAnswerIsNotChargedAgain() throws Exception {
        SlidegateConfig defaults = TestConfigs.slidegate(Map.of());
        Policy p = new Policy("twice", List.of(Limit.parse("2/1h")), Strategy.SLIDING_LOG, "ip", false);
        try (RedisServer server = RedisServer.start(); RedisClients clients = new RedisClients(server)) {
            FallbackStore instance = new FallbackStore(new RedisStore(clients.dataSource(),
                    RedisNodes.single(clients.dataSource()), RedisStore.Options.of(defaults.redis().timeout())),
                    new MemoryStore(Clock.system(), defaults.memory().maxKeys()), 1,
                    new Breaker("Redis", defaults.redis().failureThreshold(), defaults.redis().coolDown().toNanos(),
                            System::nanoTime));
            instance.acquire(p, "warm", 1).toCompletableFuture().join(); // scripts loaded, a connection open
            server.signal("STOP");
            Decision first;
            try {
                first = instance.acquire(p, "client:one", 1).toCompletableFuture().get(5, TimeUnit.SECONDS);
            } finally {
                server.signal("CONT"); // Redis runs the call it was sent, and answers it late
            }
            assertTrue(first.allowed() && first.fallback(), "the fail mode admitted the first call: " + first);
            Decision second = instance.acquire(p, "client:one", 1).toCompletableFuture().get(5, TimeUnit.SECONDS);
            Decision third = instance.acquire(p, "client:one", 1).toCompletableFuture().get(5, TimeUnit.SECONDS);
            assertTrue(second.allowed() && !second.fallback(), "Redis admits the second call of two: " + second);
            assertTrue(!third.allowed() && !third.fallback(), "and refuses the third: " + third);
        }
    }

    // the same on an event loop, as the service decides (the loop's own connection, decisions batched per turn): Redis
    // thaws 50 ms after the fail-over and runs the call it was sent, once; its late answer, read on the connection the
    // deadline gave up, takes the permit back before the next call charges what is owed
    @Test
    void onAnEventLoopAPermitRedisChargedInALateAnswerIsNotChargedAgain() throws Exception {
        SlidegateConfig defaults = TestConfigs.slidegate(Map.of());
        Policy p = new Policy("twice-on-a-loop", List.of(Limit.parse("2/1h")), Strategy.SLIDING_LOG, "ip", false);
        try (RedisServer server = RedisServer.start(); RedisClients clients = new RedisClients(server)) {
            FallbackStore instance = instance(clients, defaults);
            io.vertx.core.Context loop = clients.vertx().getDelegate().getOrCreateContext();
            warmOn(loop, instance, p); // the event loop's own connection is open
            server.signal("STOP");
            java.util.concurrent.CompletableFuture<Decision> failedOver = new java.util.concurrent.CompletableFuture<>();
            try {
                loop.runOnContext(v -> instance.acquire(p, "client:one", 1).whenComplete((d, e) -> {
                    // Redis thaws 50 ms after the fail-over, well within the budget its connection stays open for
                    java.util.concurrent.CompletableFuture.delayedExecutor(50, TimeUnit.MILLISECONDS)
                            .execute(() -> server.signal("CONT"));
                    complete(failedOver, d, e);
                }));
                failedOver.get(5, TimeUnit.SECONDS);
            } finally {
                server.signal("CONT");
            }
            Decision first = failedOver.get();
            assertTrue(first.allowed() && first.fallback(), "the fail mode admitted the first call: " + first);
            try (dev.slidegate.testing.Resp r = server.connect()) {
                long until = System.nanoTime() + 5_000_000_000L;
                long inRedis = 0;
                while (inRedis == 0 && System.nanoTime() < until) {
                    Thread.sleep(10);
                    inRedis = 0;
                    for (String key : r.scan("slidegate:{twice-on-a-loop:client:one}*")) {
                        inRedis += ((Number) r.call("ZCOUNT", key, "1", "+inf")).longValue(); // (its policy's own entry: 0)
                    }
                }
                assertTrue(inRedis == 1,
                        "Redis ran the first call when it thawed: " + inRedis + " in "
                                + r.call("ZRANGE", "slidegate:{twice-on-a-loop:client:one}:log", "0", "-1", "WITHSCORES"));
            }
            Decision second = decideOn(loop, instance, p, "client:one");
            Decision third = decideOn(loop, instance, p, "client:one");
            assertTrue(second.allowed() && !second.fallback(), "Redis admits the second call of two: " + second);
            assertTrue(!third.allowed() && !third.fallback(), "and refuses the third: " + third);
        }
    }

    /** A decision on {@code loop}: its own connection is open after it, and the scripts loaded. */
    private static void warmOn(io.vertx.core.Context loop, FallbackStore instance, Policy p) throws Exception {
        java.util.concurrent.CompletableFuture<Void> warm = new java.util.concurrent.CompletableFuture<>();
        loop.runOnContext(v -> instance.acquire(p, "warm", 1).whenComplete((d, e) -> warm.complete(null)));
        warm.get(5, TimeUnit.SECONDS);
    }

    /** {@code instance}'s decision of one call of {@code key}, asked on {@code loop} as the service asks. */
    private static Decision decideOn(io.vertx.core.Context loop, FallbackStore instance, Policy p, String key)
            throws Exception {
        java.util.concurrent.CompletableFuture<Decision> f = new java.util.concurrent.CompletableFuture<>();
        loop.runOnContext(v -> instance.acquire(p, key, 1).whenComplete((d, e) -> complete(f, d, e)));
        return f.get(5, TimeUnit.SECONDS);
    }

    private static void complete(java.util.concurrent.CompletableFuture<Decision> f, Decision d, Throwable e) {
        if (e != null) {
            f.completeExceptionally(e);
        } else {
            f.complete(d);
        }
    }

    private void runScenario(boolean twice) throws Exception {
        SlidegateConfig defaults = TestConfigs.slidegate(Map.of());
        Policy p = new Policy("late", List.of(Limit.parse("20/10s")), Strategy.SLIDING_LOG, "ip", false);
        try (RedisServer server = RedisServer.start();
                RedisClients one = new RedisClients(server);
                RedisClients two = new RedisClients(server)) {
            FallbackStore[] fleet = { instance(one, defaults), instance(two, defaults) };
            Brackets admitted = new Brackets();
            int calls = 0;
            // 15 through Redis, alternating
            while (admitted.size() < 15) {
                call(fleet[calls++ % 2], p, admitted);
            }
            int stalls = twice ? 2 : 1;
            for (int s = 0; s < stalls; s++) {
                server.signal("STOP");
                long thaw = System.nanoTime() + 1_500_000_000L;
                try {
                    while (System.nanoTime() < thaw) {
                        call(fleet[calls++ % 2], p, admitted);
                        Thread.sleep(20);
                    }
                } finally {
                    server.signal("CONT");
                }
                long after = System.nanoTime() + 700_000_000L; // Redis answers again: the breaker's cool-down, a probe
                while (System.nanoTime() < after) {
                    call(fleet[calls++ % 2], p, admitted);
                    Thread.sleep(20);
                }
            }
            int most = admitted.maxProvable(W * 1000);
            assertTrue(most <= 20, most + " admitted in 10 s of a limit of 20/10s, in " + calls + " calls over "
                    + stalls + " stall(s) (R/r admitted/refused by Redis, L/l by the fail mode): " + timeline);
            assertTrue(admitted.size() >= 15, "Redis admitted before the stall");
        }
    }

    private final StringBuilder timeline = new StringBuilder();

    private void call(FallbackStore instance, Policy p, Brackets admitted) {
        long before = System.nanoTime();
        Decision d = instance.acquire(p, "client:one", 1).toCompletableFuture().join();
        long after = System.nanoTime();
        if (d.allowed()) {
            admitted.add(before, after);
        }
        timeline.append(d.allowed() ? (d.fallback() ? 'L' : 'R') : (d.fallback() ? 'l' : 'r'));
    }
}
