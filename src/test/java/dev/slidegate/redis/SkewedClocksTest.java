package dev.slidegate.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.slidegate.api.Limit;
import dev.slidegate.api.LimitOverride;
import dev.slidegate.api.Policy;
import dev.slidegate.api.Strategy;
import dev.slidegate.core.Clock;
import dev.slidegate.core.Overrides;
import dev.slidegate.testing.RedisClients;
import dev.slidegate.testing.RedisServer;

/**
 * Two instances whose clocks differ by seconds, as they do in a fleet whose hosts drift: they agree on
 * every window on Redis (decided on the Redis server's clock) and on when an override expires (judged by
 * each instance's clock set to the Redis server's).
 */
class SkewedClocksTest {

    /** An instance clock {@code skew} away from the system's. */
    private static Clock skewed(Duration skew) {
        Clock system = Clock.system();
        long micros = skew.toNanos() / 1000;
        return new Clock() {
            @Override
            public long nowMicros() {
                return system.nowMicros() + micros;
            }

            @Override
            public long nanoTime() {
                return system.nanoTime() + skew.toNanos();
            }
        };
    }

    @Test
    void instancesSecondsApartShareEveryWindow() {
        try (RedisServer server = RedisServer.start(); RedisClients clients = new RedisClients(server)) {
            RedisStore ahead = new RedisStore(clients.dataSource(), clients.nodes(),
                    RedisStore.Options.of(Duration.ofSeconds(5)).withClock(skewed(Duration.ofSeconds(7))));
            RedisStore behind = new RedisStore(clients.dataSource(), clients.nodes(),
                    RedisStore.Options.of(Duration.ofSeconds(5)).withClock(skewed(Duration.ofSeconds(-4))));
            for (Strategy strategy : Strategy.values()) {
                Policy p = new Policy("skew-" + strategy.configName(), List.of(Limit.parse("5/1m")), strategy, "ip", false);
                int admitted = 0;
                for (int i = 0; i < 20; i++) {
                    RedisStore instance = i % 2 == 0 ? ahead : behind;
                    admitted += instance.acquire(p, "k", 1).toCompletableFuture().join().allowed() ? 1 : 0;
                }
                assertEquals(5, admitted, strategy + ": one window for both instances");
            }
            ahead.close();
            behind.close();
        }
    }

    /** One decision of the calendar scenario: the Redis server's time read before and after it, and its outcome. */
    private record Judged(long before, long after, boolean allowed) {
    }

    // issue 56: calendar periods are cut by the Redis server's clock alone, whichever instance asks and however far its
    // own clock is off, and across a restart of a persistent Redis just before a period's edge. Two instances 7 s ahead
    // and 4 s behind take turns on one key of 3 per period (irregular periods of 300 and 500 ms, a stand-in for
    // months); each call is judged by the clock the instances share, the server's TIME read before and after it: no
    // period holds more than 3 calls that lie wholly in it, no call fails once Redis answers, and the limit is used
    @Test
    void calendarPeriodsHoldAcrossInstancesAndARedisRestartAtAPeriodsEdge() throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("slidegate-aof");
        String[] persistent = { "--appendonly", "yes", "--appendfsync", "always", "--dir", dir.toString() };
        RedisServer server = RedisServer.start(RedisServer.defaultBinary(), persistent);
        int port = server.port();
        dev.slidegate.api.Periods periods = new dev.slidegate.testing.IrregularPeriods(0, new long[] { 300_000, 500_000 },
                "p300-500");
        Policy p = new Policy("calendar-skew", List.of(new Limit(3, periods)), Strategy.FIXED_WINDOW, "ip", false);
        List<Judged> judged = new java.util.ArrayList<>();
        try (RedisClients clients = new RedisClients(server)) {
            RedisStore ahead = new RedisStore(clients.dataSource(), clients.nodes(),
                    RedisStore.Options.of(Duration.ofSeconds(5)).withClock(skewed(Duration.ofSeconds(7))));
            RedisStore behind = new RedisStore(clients.dataSource(), clients.nodes(),
                    RedisStore.Options.of(Duration.ofSeconds(5)).withClock(skewed(Duration.ofSeconds(-4))));
            RedisStore[] fleet = { ahead, behind };
            int calls = 0;
            dev.slidegate.testing.Resp time = server.connect();
            long until = System.nanoTime() + 1_200_000_000L;
            while (System.nanoTime() < until) {
                judged.add(judge(fleet[calls++ % 2], p, time));
            }
            // restarted just before a period's edge: the server's state comes back from its append-only file
            long now = serverMicros(time);
            long edge = periods.endOf(now);
            if (edge - now < 60_000) {
                edge = periods.endOf(edge);
            }
            time.close();
            Thread.sleep((edge - now - 30_000) / 1000);
            server.signal("TERM");
            server.close();
            server = RedisServer.startOn(port, persistent);
            time = server.connect();
            until = System.nanoTime() + 1_200_000_000L;
            while (System.nanoTime() < until) {
                judged.add(judge(fleet[calls++ % 2], p, time));
            }
            time.close();
            ahead.close();
            behind.close();
        } finally {
            server.close();
            try (var files = java.nio.file.Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
        java.util.Map<Long, Integer> perPeriod = new java.util.TreeMap<>();
        for (Judged j : judged) {
            if (j.allowed() && periods.startOf(j.before()) == periods.startOf(j.after())) {
                perPeriod.merge(periods.startOf(j.before()), 1, Integer::sum);
            }
        }
        assertTrue(perPeriod.values().stream().allMatch(n -> n <= 3), "calls per period by the server's clock: " + perPeriod);
        // the limit is used: a call refused wholly inside a period had 3 admitted calls that may have been in it (a call
        // straddling an edge on a loaded machine counts for both periods it touches); and refusals did happen
        int refusedInside = 0;
        for (Judged j : judged) {
            long period = periods.startOf(j.before());
            if (j.allowed() || period != periods.startOf(j.after())) {
                continue;
            }
            refusedInside++;
            long end = periods.endOf(j.before());
            long touching = judged.stream().filter(a -> a.allowed() && a.after() >= period && a.before() < end).count();
            assertTrue(touching >= 3, "refused at " + j + " with " + touching + " admitted in its period " + period);
        }
        assertTrue(refusedInside > 0 && !perPeriod.isEmpty(), "the scenario reached the limit: " + perPeriod);
    }

    /** One decision by {@code instance}, bracketed by the server's time; a failed decision fails the test. */
    private static Judged judge(RedisStore instance, Policy p, dev.slidegate.testing.Resp time) {
        long before = serverMicros(time);
        boolean allowed = instance.acquire(p, "k", 1).toCompletableFuture().join().allowed();
        return new Judged(before, serverMicros(time), allowed);
    }

    /** The Redis server's clock, in µs since the epoch. */
    private static long serverMicros(dev.slidegate.testing.Resp time) {
        List<?> t = (List<?>) time.call("TIME");
        return Long.parseLong(t.get(0).toString()) * 1_000_000 + Long.parseLong(t.get(1).toString());
    }

    @Test
    void instancesSecondsApartAgreeWhenAnOverrideExpires() {
        try (RedisServer server = RedisServer.start(); RedisClients clients = new RedisClients(server)) {
            Clock aheadLocal = skewed(Duration.ofSeconds(6));
            Clock behindLocal = skewed(Duration.ofSeconds(-6));
            try (RedisClock ahead = new RedisClock(aheadLocal, clients.dataSource(), null, Duration.ofSeconds(5),
                    Duration.ofSeconds(5));
                    RedisClock behind = new RedisClock(behindLocal, clients.dataSource(), null, Duration.ofSeconds(5),
                            Duration.ofSeconds(5))) {
                assertTrue(Math.abs(ahead.nowMicros() - behind.nowMicros()) < 250_000,
                        "both read the Redis server's time, not their own: " + (ahead.nowMicros() - behind.nowMicros())
                                + " µs");
                // an override set "for 3 s" on the instance ahead, as the admin sets it: it expires 3 s from the fleet's now
                Instant expires = instant(ahead.nowMicros() + 3_000_000);
                LimitOverride o = new LimitOverride(new LimitOverride.Target("reports", null, "hdr:t"),
                        List.of(Limit.parse("1/1h")), false, false, expires, null, "test", instant(ahead.nowMicros()));
                Overrides onAhead = new Overrides(ahead);
                Overrides onBehind = new Overrides(behind);
                Overrides onOwnClockAhead = new Overrides(aheadLocal);
                for (Overrides instance : List.of(onAhead, onBehind, onOwnClockAhead)) {
                    instance.replaceAll(List.of(o));
                }
                assertEquals(1, onAhead.activeCount());
                assertEquals(1, onBehind.activeCount(), "in force on the instance behind too");
                // the failure this prevents: by its own clock, 6 s ahead, the instance would drop it at once
                assertEquals(0, onOwnClockAhead.activeCount(), "by its own clock the instance ahead sees it expired");
            }
        }
    }

    private static Instant instant(long micros) {
        return Instant.ofEpochSecond(micros / 1_000_000, (micros % 1_000_000) * 1000);
    }
}
