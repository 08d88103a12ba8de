package dev.slidegate.api;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** What a policy does when its remote store cannot decide (down, too slow, or skipped by the breaker). */
public enum FailMode {
    /** Admit the call and report it: availability first. */
    OPEN,
    /** Refuse the call with 503 and {@code Retry-After}: protection first. */
    CLOSED,
    /**
     * Decide in process, at N ÷ the number of live instances per limit (they count each other through
     * Redis; {@code slidegate.fallback.instances} overrides), so the fleet stays near N. The default:
     * it keeps limiting during an outage.
     */
    LOCAL;

    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static FailMode parse(String text) {
        for (FailMode m : values()) {
            if (m.configName().equals(text == null ? null : text.trim().toLowerCase(Locale.ROOT))) {
                return m;
            }
        }
        throw new IllegalArgumentException("'" + text + "' is not a fail mode: expected one of "
                + Arrays.stream(values()).map(FailMode::configName).collect(Collectors.joining(", ")));
    }
}
