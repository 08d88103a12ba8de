package dev.slidegate.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

import org.junit.jupiter.api.Test;

/**
 * Calendar periods where the calendar says: month ends, the changes to and from summer time of the named zone (a day of
 * 23 and one of 25 hours), leap days, ISO weeks, a zone whose change skips midnight. Instants are written as the
 * calendar of that zone gives them, in UTC, so each expectation is read off a calendar, not computed by the code tested.
 */
class CalendarTest {

    private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

    private static long micros(String instant) {
        Instant i = Instant.parse(instant);
        return i.getEpochSecond() * 1_000_000 + i.getNano() / 1000;
    }

    private static void assertPeriod(Calendar c, String at, String start, String end) {
        assertEquals(micros(start), c.startOf(micros(at)), c + " start at " + at);
        assertEquals(micros(end), c.endOf(micros(at)), c + " end at " + at);
    }

    @Test
    void monthsStartAtMidnightOfTheFirstInTheZone() {
        Calendar month = new Calendar(Calendar.Unit.MONTH, BERLIN);
        // 31 March 23:30 in Berlin (summer time, +02:00) is still March; 1 April 00:00 Berlin is 31 March 22:00 UTC
        assertPeriod(month, "2026-03-31T21:30:00Z", "2026-02-28T23:00:00Z", "2026-03-31T22:00:00Z");
        assertPeriod(month, "2026-03-31T22:00:00Z", "2026-03-31T22:00:00Z", "2026-04-30T22:00:00Z");
        // a month with the change to summer time is 31 days less an hour
        assertEquals(Duration.ofDays(31).minusHours(1).toNanos() / 1000,
                month.endOf(micros("2026-03-15T12:00:00Z")) - month.startOf(micros("2026-03-15T12:00:00Z")));
        // December to January: the year turns in Berlin an hour before it does in UTC
        assertPeriod(month, "2026-12-31T23:30:00Z", "2026-12-31T23:00:00Z", "2027-01-31T23:00:00Z");
        // in UTC (no zone given): the first of the month at 00:00 UTC
        Calendar utc = new Calendar(Calendar.Unit.MONTH, ZoneOffset.UTC);
        assertPeriod(utc, "2026-12-31T23:30:00Z", "2026-12-01T00:00:00Z", "2027-01-01T00:00:00Z");
    }

    @Test
    void aDayWithAChangeOfSummerTimeIsStillADay() {
        Calendar day = new Calendar(Calendar.Unit.DAY, BERLIN);
        // 29 March 2026: 02:00 becomes 03:00 in Berlin, a day of 23 hours
        assertPeriod(day, "2026-03-29T12:00:00Z", "2026-03-28T23:00:00Z", "2026-03-29T22:00:00Z");
        // 25 October 2026: 03:00 becomes 02:00, a day of 25 hours
        assertPeriod(day, "2026-10-25T12:00:00Z", "2026-10-24T22:00:00Z", "2026-10-25T23:00:00Z");
        // the hour that happens twice belongs to that one day
        assertPeriod(day, "2026-10-25T00:30:00Z", "2026-10-24T22:00:00Z", "2026-10-25T23:00:00Z");
        assertPeriod(day, "2026-10-25T01:30:00Z", "2026-10-24T22:00:00Z", "2026-10-25T23:00:00Z");
    }

    @Test
    void leapDaysAreDaysAndFebruaryHasThem() {
        Calendar day = new Calendar(Calendar.Unit.DAY, ZoneOffset.UTC);
        assertPeriod(day, "2028-02-29T13:00:00Z", "2028-02-29T00:00:00Z", "2028-03-01T00:00:00Z");
        Calendar month = new Calendar(Calendar.Unit.MONTH, BERLIN);
        assertPeriod(month, "2028-02-29T22:59:59Z", "2028-01-31T23:00:00Z", "2028-02-29T23:00:00Z");
        assertPeriod(month, "2027-02-28T12:00:00Z", "2027-01-31T23:00:00Z", "2027-02-28T23:00:00Z");
    }

    @Test
    void weeksRunFromMondayToSunday() {
        Calendar week = new Calendar(Calendar.Unit.WEEK, BERLIN);
        // Thursday 26 November 2026: the week of Monday 23 November; Sunday 29 November 23:30 Berlin is still in it
        assertPeriod(week, "2026-11-26T10:00:00Z", "2026-11-22T23:00:00Z", "2026-11-29T23:00:00Z");
        assertPeriod(week, "2026-11-29T22:30:00Z", "2026-11-22T23:00:00Z", "2026-11-29T23:00:00Z");
        // the week of the change back to winter time has 7 days and an hour
        assertEquals(Duration.ofDays(7).plusHours(1).toNanos() / 1000,
                week.endOf(micros("2026-10-21T12:00:00Z")) - week.startOf(micros("2026-10-21T12:00:00Z")));
    }

    @Test
    void aChangeThatSkipsMidnightStartsTheDayAtItsFirstInstant() {
        // Santiago de Chile moves from -04:00 to -03:00 at midnight starting 6 September 2026: that day starts at 01:00
        Calendar day = new Calendar(Calendar.Unit.DAY, ZoneId.of("America/Santiago"));
        assertPeriod(day, "2026-09-06T12:00:00Z", "2026-09-06T04:00:00Z", "2026-09-07T03:00:00Z");
        assertEquals(Duration.ofHours(23).toNanos() / 1000,
                day.endOf(micros("2026-09-06T12:00:00Z")) - day.startOf(micros("2026-09-06T12:00:00Z")));
    }

    @Test
    void periodsFollowOneAnotherWithoutGaps() {
        for (Calendar.Unit unit : Calendar.Unit.values()) {
            Calendar c = new Calendar(unit, BERLIN);
            long t = micros("2026-01-01T00:00:00Z");
            for (int i = 0; i < 500; i++) {
                long end = c.endOf(t);
                assertTrue(end > t && c.startOf(end) == end && c.startOf(end - 1) == c.startOf(t), c + " at " + t);
                assertTrue(end - c.startOf(t) <= c.longestMicros(), c + " longer than its longest at " + t);
                t = end;
            }
        }
    }

    @Test
    void limitsPerPeriodAreWrittenWithThePeriodsName() {
        Limit month = Limit.parse("1000000/month");
        assertEquals("1000000/month", month.toString());
        assertTrue(month.calendar());
        assertEquals(new Calendar(Calendar.Unit.MONTH, null), month.periods());
        assertEquals(new Calendar(Calendar.Unit.MONTH, BERLIN), month.inZone(BERLIN).periods());
        assertEquals(Limit.parse("5/1d"), Limit.parse("5/1d").inZone(BERLIN), "a window of one length has no zone");
        assertEquals(month, Limit.parse("1000000/1mo"), "as the issue wrote it");
        assertEquals(month, Limit.parse(" 1000000 / 1 Month "));
        assertEquals(Limit.parse("5/day"), Limit.parse("5/1day"));
        assertTrue(!Limit.parse("5/1d").calendar(), "1d is 24 hours from the epoch, not a day in a zone");
        assertTrue(!Limit.parse("5/1m").calendar(), "1m is a minute");
        assertEquals(" e.g. 500/2s, or <permits>/day, /week or /month (also /1mo) for a calendar period",
                Limit.EXPECTED.substring(Limit.EXPECTED.indexOf(" e.g.")));
        assertThrows(IllegalArgumentException.class, () -> Limit.parse("5/year"));
        assertThrows(IllegalArgumentException.class, () -> Limit.parse("0/month"));
    }
}
