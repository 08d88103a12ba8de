package dev.slidegate.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.slidegate.api.Limit;
import dev.slidegate.api.Policy;
import dev.slidegate.api.Strategy;
import dev.slidegate.core.UpstreamHeaders;
import dev.slidegate.memory.MemoryStore;
import dev.slidegate.metrics.UpstreamStats;
import dev.slidegate.testing.ManualClock;

/**
 * One clock (issue 57): a test that moves the instance's {@link dev.slidegate.core.Clock} moves everything that counts
 * time. Waits and leases: {@link DeciderTest} and {@link LeasesTest}, whose timers, waits, leases and store all read one
 * {@link ManualClock}. Here: upstream holds, settlements and calendar periods, each on a clock years away from the
 * system's, so a component that read the system's time instead would fail.
 */
class OneClockTest {

    private final ManualClock clock = new ManualClock(); // 2026-01-01T00:00:00Z
    private final MemoryStore store = new MemoryStore(clock, 1000);

    // an upstream's 429 whose Retry-After is a date 30 s after the instance's now holds its calls 30 s of that clock (read
    // by the system's clock, months later, the date would be past), and moving the clock ends the hold
    @Test
    void movingTheClockEndsAnUpstreamHold() {
        Upstreams u = new Upstreams(store, null, new UpstreamStats((io.micrometer.core.instrument.MeterRegistry) null),
                UpstreamHeaders.Form.all(), 0, 1_000_000, 300_000_000, 10_000, false, 1, clock);
        Policy quotes = new Policy("quotes", List.of(Limit.parse("10/10s")), Strategy.SLIDING_LOG, "global", false);
        String date = DateTimeFormatter.RFC_1123_DATE_TIME
                .format(Instant.ofEpochSecond(clock.nowMicros() / 1_000_000 + 30).atZone(ZoneOffset.UTC));
        u.learn(quotes, "a", 429, name -> name.equalsIgnoreCase("Retry-After") ? List.of(date) : null)
                .toCompletableFuture().join();
        long held = store.heldFor(u.paced(quotes, "a"), "a").toCompletableFuture().join();
        assertTrue(held > 29_000_000 && held <= 30_000_000, "held for " + held + " us by the instance's clock");
        clock.advance(Duration.ofSeconds(30));
        assertEquals(0L, store.heldFor(u.paced(quotes, "a"), "a").toCompletableFuture().join(), "the hold ended");
    }

    // what a call settles is charged at its admission's instant on the clock, and leaves the window when the clock moves
    // past it
    @Test
    void movingTheClockMovesSettledUsageOutOfTheWindow() {
        Policy tokens = new Policy("tokens", List.of(Limit.parse("100/1s")), Strategy.SLIDING_COUNTER, "global", false);
        var admitted = store.acquire(tokens, "k", 10).toCompletableFuture().join();
        assertTrue(admitted.allowed());
        store.settle(tokens, "k", admitted.atMicros(), 10, 100).toCompletableFuture().join();
        assertFalse(store.acquire(tokens, "k", 1).toCompletableFuture().join().allowed(), "the usage fills the window");
        clock.advance(Duration.ofMillis(1_100));
        assertEquals(99, store.acquire(tokens, "k", 1).toCompletableFuture().join().remaining(),
                "a window later by the clock, the usage has left it");
    }

    // a calendar budget (3 per day, UTC) is cut by the clock: used up on 2026-01-01, whole again when the clock reaches the
    // next day, not when the system's does
    @Test
    void movingTheClockAcrossMidnightStartsTheNextPeriod() {
        Policy daily = new Policy("daily", List.of(Limit.parse("3/day")), Strategy.FIXED_WINDOW, "global", false);
        for (int i = 0; i < 3; i++) {
            assertTrue(store.acquire(daily, "k", 1).toCompletableFuture().join().allowed());
        }
        clock.advance(Duration.ofHours(23).plusMinutes(59));
        assertFalse(store.acquire(daily, "k", 1).toCompletableFuture().join().allowed(), "still 2026-01-01");
        clock.advance(Duration.ofMinutes(1));
        assertTrue(store.acquire(daily, "k", 1).toCompletableFuture().join().allowed(), "2026-01-02 by the clock");
    }
}
