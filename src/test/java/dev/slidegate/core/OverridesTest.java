package dev.slidegate.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.slidegate.api.Limit;
import dev.slidegate.api.LimitOverride;
import dev.slidegate.api.Policy;
import dev.slidegate.api.Strategy;
import dev.slidegate.testing.ManualClock;

/** The index of overrides: a change touches what it changes, and the rest (and the policies made for it) stays as it was. */
class OverridesTest {

    private final Overrides overrides = new Overrides(new ManualClock());
    private final Policy reports = new Policy("reports", List.of(Limit.parse("3/1h")), Strategy.FIXED_WINDOW, "ip", false);

    private static LimitOverride limit(String key, String limit) {
        return new LimitOverride(new LimitOverride.Target("reports", null, key), List.of(Limit.parse(limit)), false, false,
                null,
                null, "admin", Instant.EPOCH);
    }

    @Test
    void aChangeTouchesWhatItChanges() {
        List<LimitOverride> many = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            many.add(limit("ip:10.0.0." + i, "5/1h"));
        }
        assertTrue(overrides.replaceAll(many));
        long version = overrides.version();
        Policy under = overrides.find("reports", reports, "ip:10.0.0.7").applyTo(reports);
        assertFalse(overrides.replaceAll(many), "the same overrides: nothing changed");
        assertEquals(version, overrides.version());
        assertTrue(overrides.apply(List.of(limit("ip:10.0.0.8", "9/1h")), List.of(new LimitOverride.Target("reports", null,
                "ip:10.0.0.9"))));
        assertTrue(overrides.version() > version);
        assertSame(under, overrides.find("reports", reports, "ip:10.0.0.7").applyTo(reports), "an untouched override's policy");
        assertEquals(List.of(Limit.parse("9/1h")), overrides.find("reports", reports, "ip:10.0.0.8").applyTo(reports).limits());
        assertNull(overrides.find("reports", reports, "ip:10.0.0.9"));
        assertEquals(999, overrides.size());
        many.remove(0);
        assertTrue(overrides.replaceAll(many)); // 10.0.0.0 removed, 10.0.0.8 back to 5/1h, 10.0.0.9 back
        assertNull(overrides.find("reports", reports, "ip:10.0.0.0"));
        assertEquals(999, overrides.all().size());
        assertTrue(overrides.replaceAll(List.of()));
        assertTrue(overrides.isEmpty());
    }
}
