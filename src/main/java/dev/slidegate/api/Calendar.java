package dev.slidegate.api;

import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.TemporalAdjusters;
import java.util.Locale;

/**
 * Calendar periods in a time zone: days, weeks (Monday to Sunday, as ISO 8601) or months, each starting at the first
 * instant of its first day there (midnight, or the first instant after a gap when a change of offset skips midnight). A
 * day with a change to or from summer time is a day: 23 or 25 hours.
 *
 * @param unit the period
 * @param zone the time zone the periods start in; {@code null} only while the policy has not said (it then takes its
 *        policy's {@code zone}, else UTC)
 */
public record Calendar(Unit unit, ZoneId zone) implements Periods {

    /** The periods a limit can be counted in. */
    public enum Unit {
        DAY,
        WEEK,
        MONTH;

        /** The configuration spelling: {@code day}, {@code week}, {@code month}. */
        public String spelling() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private static final long HOUR = 3_600_000_000L;
    private static final long DAY = 24 * HOUR;

    /** The same periods in {@code zone}. */
    public Calendar in(ZoneId zone) {
        return new Calendar(unit, zone);
    }

    private ZoneId zoneOrUtc() {
        return zone == null ? ZoneOffset.UTC : zone;
    }

    /** The first day of the period that holds {@code date}. */
    private LocalDate first(LocalDate date) {
        return switch (unit) {
            case DAY -> date;
            case WEEK -> date.with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY));
            case MONTH -> date.withDayOfMonth(1);
        };
    }

    private LocalDate next(LocalDate first) {
        return switch (unit) {
            case DAY -> first.plusDays(1);
            case WEEK -> first.plusWeeks(1);
            case MONTH -> first.plusMonths(1);
        };
    }

    private long micros(LocalDate day) {
        Instant start = day.atStartOfDay(zoneOrUtc()).toInstant();
        return start.getEpochSecond() * 1_000_000 + start.getNano() / 1000;
    }

    private LocalDate dateOf(long micros) {
        return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000), Math.floorMod(micros, 1_000_000) * 1000L)
                .atZone(zoneOrUtc()).toLocalDate();
    }

    @Override
    public long startOf(long micros) {
        return micros(first(dateOf(micros)));
    }

    @Override
    public long endOf(long micros) {
        return micros(next(first(dateOf(micros))));
    }

    @Override
    public long longestMicros() {
        return switch (unit) {
            case DAY -> DAY + HOUR;
            case WEEK -> 7 * DAY + HOUR;
            case MONTH -> 31 * DAY + HOUR;
        };
    }

    @Override
    public String name() {
        return unit.spelling();
    }
}
