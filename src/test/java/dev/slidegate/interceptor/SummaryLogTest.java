package dev.slidegate.interceptor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.slidegate.core.Decision;
import dev.slidegate.core.Limit;
import dev.slidegate.core.Policy;
import dev.slidegate.core.Strategy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/** Refusals are logged as a summary per policy: the first at once, then at most one line per interval, with the count. */
class SummaryLogTest {

    @Test
    void oneLinePerIntervalWithTheCountAndNoKey() {
        AtomicLong nanos = new AtomicLong(1_000_000_000_000L);
        SummaryLog summary = new SummaryLog("dev.slidegate.test-summary", "refused", 60, nanos::get);
        List<String> lines = new ArrayList<>();
        Logger jul = Logger.getLogger("dev.slidegate.test-summary");
        jul.setLevel(Level.INFO);
        Handler h = new Handler() {
            @Override
            public void publish(LogRecord r) {
                lines.add(r.getLevel() + " " + String.format(r.getMessage().replace("%d", "%s"), r.getParameters()));
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        jul.addHandler(h);
        try {
            Policy p = new Policy("api", List.of(Limit.parse("3/1m")), Strategy.SLIDING_LOG, "ip", false);
            Decision refused = new Decision(p, false, 0, 1_000_000, 0, List.of());
            summary.record(refused);
            assertEquals(1, lines.size(), "the first refusal is reported at once: " + lines);
            for (int i = 0; i < 500; i++) {
                nanos.addAndGet(100_000_000L); // 50 s in all
                summary.record(refused);
            }
            assertEquals(1, lines.size(), "nothing more within the interval: " + lines);
            nanos.addAndGet(10_000_000_000L);
            summary.record(refused);
            assertEquals(2, lines.size(), lines.toString());
            assertTrue(lines.get(1).startsWith("INFO Policy 'api' refused 501 call(s) in the last 60 s; latest by limit 3/1m"), lines.get(1));
        } finally {
            jul.removeHandler(h);
        }
    }
}
