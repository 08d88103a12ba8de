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
            for (Strategy strategy : Strategy.rates()) {
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
