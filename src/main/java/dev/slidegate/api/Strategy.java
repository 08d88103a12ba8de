package dev.slidegate.api;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * How a store counts permits per window. Configured in kebab case: {@code sliding-log}, {@code fixed-window}. Calls in
 * flight are not a strategy but a primitive of their own ({@link Policy#inFlight(String, int, long, String)}).
 */
public enum Strategy {
    /**
     * Exact: a log of admitted permits; no interval of length W ever holds more than N. Memory grows
     * with N (one entry per permit in the window).
     */
    SLIDING_LOG,
    /**
     * One counter per epoch-aligned window. O(1) memory, but up to 2N can pass in an interval of
     * length W that straddles a window edge.
     */
    FIXED_WINDOW,
    /**
     * Counters per cell (W / cells) per limit, counting the oldest, partly overlapping cell in full: never
     * more than N in any interval of length W, O(cells) memory, at the price of admitting somewhat
     * fewer than N.
     */
    SLIDING_COUNTER,
    /**
     * GCRA: one theoretical arrival time per limit; a smooth rate of N per W with bursts up to N. O(1)
     * memory; up to 2N - 1 can pass in an interval of length W (a full burst, then the refill).
     */
    TOKEN_BUCKET;

    /**
     * Whether a call counted this way can be settled after it ran (charged its actual usage instead of its estimate):
     * every strategy that counts per window or per cell. Not {@link #SLIDING_LOG}, which keeps one entry per permit, so a
     * usage known afterwards (tokens, bytes) would cost memory in proportion to it.
     */
    public boolean settles() {
        return this == FIXED_WINDOW || this == SLIDING_COUNTER || this == TOKEN_BUCKET;
    }

    /** The strategies that settle, for error messages. */
    public static String settlingNames() {
        return "sliding-counter (never more than N in any window, as the sliding log), fixed-window or token-bucket";
    }

    /** The configuration spelling, e.g. {@code sliding-log}. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** Every configuration spelling, comma separated, for error messages. */
    public static String validNames() {
        return Arrays.stream(values()).map(Strategy::configName).collect(Collectors.joining(", "));
    }

    /**
     * Parses a configuration spelling.
     *
     * @throws IllegalArgumentException naming the valid values
     */
    public static Strategy parse(String text) {
        for (Strategy s : values()) {
            if (s.configName().equals(text == null ? null : text.trim().toLowerCase(Locale.ROOT))) {
                return s;
            }
        }
        throw new IllegalArgumentException("'" + text + "' is not a strategy: expected one of " + validNames()
                + " (calls in flight are limited by max-in-flight, not a strategy)");
    }
}
