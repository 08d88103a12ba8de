package dev.slidegate.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

import org.junit.jupiter.api.Test;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Limit;
import dev.slidegate.api.Policy;
import dev.slidegate.api.Strategy;
import dev.slidegate.testing.LogCapture;

/** Refusals are logged as a summary per policy: the first at once, then at most one line per interval, with the count. */
class SummaryLogTest {

    @Test
    void oneLinePerIntervalWithTheCountAndNoKey() {
        AtomicLong nanos = new AtomicLong(1_000_000_000_000L);
        SummaryLog summary = new SummaryLog("dev.slidegate.test-summary", "refused", 60, nanos::get);
        Logger.getLogger("dev.slidegate.test-summary").setLevel(Level.INFO);
        try (LogCapture log = LogCapture.of("dev.slidegate.test-summary")) {
            Policy p = new Policy("api", List.of(Limit.parse("3/1m")), Strategy.SLIDING_LOG, "ip", false);
            Decision refused = new Decision(p, false, 0, 1_000_000, 0, List.of());
            summary.record(refused);
            assertEquals(1, log.lines().size(), "the first refusal is reported at once: " + log.lines());
            for (int i = 0; i < 500; i++) {
                nanos.addAndGet(100_000_000L); // 50 s in all
                summary.record(refused);
            }
            assertEquals(1, log.lines().size(), "nothing more within the interval: " + log.lines());
            nanos.addAndGet(10_000_000_000L);
            summary.record(refused);
            List<String> lines = log.lines();
            assertEquals(2, lines.size(), lines.toString());
            assertTrue(lines.get(1).startsWith("INFO Policy 'api' refused 501 call(s) in the last 60 s; latest by limit 3/1m"),
                    lines.get(1));
        }
    }

    // issue 56: a policy of calls in flight has slots, not limits or permits: its summaries say so
    @Test
    void aPolicyOfCallsInFlightIsSummarisedInSlots() {
        AtomicLong nanos = new AtomicLong(1_000_000_000_000L);
        SummaryLog summary = new SummaryLog("dev.slidegate.test-slots", "refused at once (no slot freed within its max-wait)",
                60, nanos::get);
        Logger.getLogger("dev.slidegate.test-slots").setLevel(Level.INFO);
        try (LogCapture log = LogCapture.of("dev.slidegate.test-slots")) {
            Policy p = Policy.inFlight("archives", 2, 30_000_000L, "ip");
            summary.record(new Decision(p, false, 0, 1_000_000, 0, List.of()));
            String line = log.lines().get(0);
            assertEquals("INFO Policy 'archives' refused at once (no slot freed within its max-wait) 1 call(s) in the last "
                    + "0 s; all 2 slots in use", line.replaceAll("in the last \\d+ s", "in the last 0 s"));
        }
    }
}
