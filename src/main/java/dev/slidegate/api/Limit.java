package dev.slidegate.api;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One quota: at most {@code permits} in any interval of length {@code window}, written {@code 500/2s}; or, with
 * {@code periods}, at most {@code permits} in each calendar period, written {@code 1000000/month}.
 *
 * <p>
 * Windows are held in microseconds, the resolution of Redis {@code TIME}.
 *
 * @param permits the quota N, at least 1
 * @param windowMicros the window W in microseconds, at least 1 ms; with periods, the longest a period can be
 * @param periods how a limit counted per calendar period cuts time ({@link Calendar}), or {@code null} for a window of
 *        one length
 */
public record Limit(int permits, long windowMicros, Periods periods) {

    private static final Pattern FORMAT = Pattern.compile("\\s*(\\d{1,10})\\s*/\\s*(\\d{0,12})\\s*(ms|s|m|h|d)\\s*");
    private static final Pattern CALENDAR = Pattern.compile("\\s*(\\d{1,10})\\s*/\\s*(?:1\\s*)?(day|week|month|mo)\\s*");
    private static final long MAX_WINDOW_MICROS = Duration.ofDays(366).toNanos() / 1000;
    /** What a valid limit looks like, for error messages. */
    public static final String EXPECTED = "<permits>/<duration> with permits >= 1 and a unit of ms, s, m, h or d, e.g. 500/2s, "
            + "or <permits>/day, /week or /month (also /1mo) for a calendar period";

    public Limit {
        if (permits < 1) {
            throw new IllegalArgumentException("permits must be at least 1, was " + permits);
        }
        if (periods != null) {
            windowMicros = periods.longestMicros();
        }
        if (windowMicros < 1000 || windowMicros > MAX_WINDOW_MICROS) {
            throw new IllegalArgumentException("window must be between 1ms and 366d");
        }
    }

    /** A window of one length. */
    public Limit(int permits, long windowMicros) {
        this(permits, windowMicros, null);
    }

    /** A quota per calendar period (or other periods). */
    public Limit(int permits, Periods periods) {
        this(permits, periods.longestMicros(), periods);
    }

    /** Whether this limit counts per calendar period rather than in a sliding window of one length. */
    public boolean calendar() {
        return periods != null;
    }

    /**
     * Parses {@code "500/2s"}, {@code "5/1m"}, {@code "100/h"} (a missing amount means 1).
     *
     * @throws IllegalArgumentException with a message saying what would be valid
     */
    public static Limit parse(String text) {
        Matcher c = CALENDAR.matcher(text == null ? "" : text.toLowerCase(Locale.ROOT));
        if (c.matches()) {
            long permits = Long.parseLong(c.group(1));
            if (permits < 1 || permits > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("'" + text + "' is not a limit: permits must be between 1 and "
                        + Integer.MAX_VALUE + "; expected " + EXPECTED);
            }
            return new Limit((int) permits,
                    new Calendar(Calendar.Unit.valueOf(c.group(2).equals("mo") ? "MONTH" : c.group(2).toUpperCase(Locale.ROOT)),
                            null));
        }
        Matcher m = FORMAT.matcher(text == null ? "" : text.toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a limit: expected " + EXPECTED);
        }
        if (text.substring(m.start(3), m.end(3)).equals("M")) {
            // 1M reads as a month to many (Java's Period, Kubernetes), as a minute here: one capital letter from /1mo
            throw new IllegalArgumentException("'" + text + "' is not a limit: 'M' is ambiguous; write m for minutes (5/1m) "
                    + "or /month for a calendar month (5/month)");
        }
        long permits = Long.parseLong(m.group(1));
        long amount = m.group(2).isEmpty() ? 1 : Long.parseLong(m.group(2));
        if (permits < 1 || permits > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("'" + text + "' is not a limit: permits must be between 1 and "
                    + Integer.MAX_VALUE + "; expected " + EXPECTED);
        }
        long unitMicros = switch (m.group(3)) {
            case "ms" -> 1_000L;
            case "s" -> 1_000_000L;
            case "m" -> 60_000_000L;
            case "h" -> 3_600_000_000L;
            default -> 86_400_000_000L;
        };
        if (amount < 1 || amount > MAX_WINDOW_MICROS / unitMicros) {
            throw new IllegalArgumentException(
                    "'" + text + "' is not a limit: the window must be between 1ms and 366d; expected "
                            + EXPECTED);
        }
        return new Limit((int) permits, amount * unitMicros);
    }

    public Duration window() {
        return Duration.ofNanos(windowMicros * 1000);
    }

    /** The window in whole seconds, rounded up and at least 1: the {@code w} of the RateLimit fields. */
    public long windowSeconds() {
        return Math.max(1, (windowMicros + 999_999) / 1_000_000);
    }

    /** The window in its largest exact unit: {@code 2s}, {@code 1m}, {@code 500ms}; a calendar period's name: {@code month}. */
    public String windowText() {
        return periods != null ? periods.name() : durationText(windowMicros / 1000);
    }

    /** A calendar limit without a zone of its own in {@code zone}; any other limit as it is. */
    public Limit inZone(java.time.ZoneId zone) {
        return periods instanceof Calendar c && c.zone() == null ? new Limit(permits, c.in(zone)) : this;
    }

    /** A duration in its largest exact unit: {@code 2s}, {@code 1m}, {@code 500ms}. */
    public static String durationText(long ms) {
        if (ms % 86_400_000 == 0) {
            return ms / 86_400_000 + "d";
        }
        if (ms % 3_600_000 == 0) {
            return ms / 3_600_000 + "h";
        }
        if (ms % 60_000 == 0) {
            return ms / 60_000 + "m";
        }
        if (ms % 1000 == 0) {
            return ms / 1000 + "s";
        }
        return ms + "ms";
    }

    @Override
    public String toString() {
        return permits + "/" + windowText();
    }
}
