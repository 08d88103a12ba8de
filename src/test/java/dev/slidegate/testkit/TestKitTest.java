package dev.slidegate.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

import dev.slidegate.core.Clock;
import io.quarkus.runtime.configuration.ConfigurationException;

/**
 * The test kit cannot freeze a service's time outside its tests, and says in a sentence what a test forgot to select.
 * (What it does inside a service's tests, in process and on Redis, is run by {@code src/it/consumer}'s tests.)
 */
class TestKitTest {

    @Test
    void theTestClockRefusesToRunOutsideTests() {
        ConfigurationException e = assertThrows(ConfigurationException.class, TestClock::new);
        assertTrue(e.getMessage().contains("TestClock is selected (quarkus.arc.selected-alternatives) outside tests, where "
                + "Slidegate's time would stand still"), e.getMessage());
    }

    @Test
    void theTestClockMovesForwardOnlyFromAnInstantWhereEveryWindowBegins() {
        Instant before = TestClock.now();
        TestClock.advance(Duration.ofMillis(1500));
        assertEquals(before.plusMillis(1500), TestClock.now());
        assertThrows(IllegalArgumentException.class, () -> TestClock.advance(Duration.ofMillis(-1)));
        assertEquals(before.plusMillis(1500), TestClock.now(), "a refused move moves nothing");
        assertEquals(Instant.parse("2026-01-01T00:00:00Z"), Instant.ofEpochSecond(TestClock.START_MICROS / 1_000_000));
    }

    @Test
    void advancingWithoutTheTestClockSaysWhatToSelect() {
        SlidegateTestKit kit = new SlidegateTestKit(null, null, Clock.system());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> kit.advance(Duration.ofSeconds(1)));
        assertTrue(e.getMessage().contains("%test.quarkus.arc.selected-alternatives=dev.slidegate.testkit.TestClock"),
                e.getMessage());
    }
}
