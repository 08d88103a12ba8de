package dev.slidegate.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Limit;
import dev.slidegate.api.Policy;
import dev.slidegate.api.Strategy;

class LimitTest {

    @Test
    void parsesEveryUnit() {
        assertEquals(new Limit(500, 2_000_000), Limit.parse("500/2s"));
        assertEquals(new Limit(5, 250_000), Limit.parse("5/250ms"));
        assertEquals(Duration.ofMinutes(1), Limit.parse("5/1m").window());
        assertEquals(Duration.ofHours(1), Limit.parse("100/h").window());
        assertEquals(Duration.ofDays(2), Limit.parse(" 7 / 2d ").window());
    }

    // issue 56: N/1M meant minutes and N/1mo months, one capital letter apart; a capital M is refused, naming both
    @Test
    void aCapitalMIsAmbiguousAndRefused() {
        for (String text : List.of("100/1M", "100/M", " 5 / 10M ")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Limit.parse(text));
            assertTrue(e.getMessage().contains("'M' is ambiguous") && e.getMessage().contains("/month"), e.getMessage());
        }
        assertEquals(Duration.ofMinutes(1), Limit.parse("5/1m").window());
        assertEquals(new Limit(5, 1000), Limit.parse("5/1MS"));
        assertTrue(Limit.parse("5/1MO").calendar());
    }

    @Test
    void printsInTheLargestExactUnit() {
        assertEquals("500/2s", Limit.parse("500/2000ms").toString());
        assertEquals("10000/1m", Limit.parse("10000/60s").toString());
        assertEquals("1/1500ms", Limit.parse("1/1500ms").toString());
        assertEquals("1/1d", Limit.parse("1/24h").toString());
        assertEquals(1, Limit.parse("1/500ms").windowSeconds(), "w is at least 1");
        assertEquals(2, Limit.parse("1/1500ms").windowSeconds(), "w rounds up");
    }

    @ParameterizedTest
    @ValueSource(strings = { "0/1s", "5/0s", "abc", "", "5/1", "5/1y", "-1/1s", "5/1s/2", "99999999999/1s", "1/400d" })
    void rejectsWhatIsNotALimitSayingWhatIsValid(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Limit.parse(text));
        assertTrue(e.getMessage().contains("'" + text + "'"), e.getMessage());
        assertTrue(e.getMessage().contains("e.g. 500/2s"), e.getMessage());
    }

    @Test
    void policiesRejectBadNamesAndDuplicateWindows() {
        List<Limit> one = List.of(Limit.parse("1/1s"));
        assertThrows(IllegalArgumentException.class, () -> new Policy("a:b", one, Strategy.SLIDING_LOG, "ip", false));
        assertThrows(IllegalArgumentException.class, () -> new Policy("a{b}", one, Strategy.SLIDING_LOG, "ip", false));
        assertThrows(IllegalArgumentException.class, () -> new Policy("p", List.of(), Strategy.SLIDING_LOG, "ip", false));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new Policy("p", List.of(Limit.parse("1/1s"), Limit.parse("5/1000ms")), Strategy.SLIDING_LOG, "ip",
                        false));
        assertTrue(e.getMessage().contains("two limits with the window 1s"), e.getMessage());
    }

    @Test
    void strategiesParseInKebabCase() {
        assertEquals(Strategy.SLIDING_LOG, Strategy.parse("sliding-log"));
        assertEquals(Strategy.FIXED_WINDOW, Strategy.parse("Fixed-Window"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Strategy.parse("leaky"));
        assertEquals("'leaky' is not a strategy: expected one of sliding-log, fixed-window, sliding-counter, token-bucket "
                + "(calls in flight are limited by max-in-flight, not a strategy)", e.getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Strategy.parse("concurrency")).getMessage()
                .contains("max-in-flight"), "calls in flight are no strategy to configure");
    }

    @Test
    void decisionsRoundRetryAfterUpToWholeSecondsOfAtLeastOne() {
        Policy p = new Policy("p", List.of(Limit.parse("1/1m")), Strategy.SLIDING_LOG, "ip", false);
        assertEquals(1, new Decision(p, false, 0, 1, 0, List.of()).retryAfterSeconds());
        assertEquals(1, new Decision(p, false, 0, 1_000_001, 0, List.of()).retryAfterSeconds(), "the sliding log's last tick");
        assertEquals(2, new Decision(p, false, 0, 1_000_002, 0, List.of()).retryAfterSeconds());
        assertEquals(61, new Decision(p, false, 0, 60_000_002, 0, List.of()).retryAfterSeconds());
        assertEquals(60, new Decision(p, false, 0, 60_000_000, 0, List.of()).retryAfterSeconds());
    }
}
