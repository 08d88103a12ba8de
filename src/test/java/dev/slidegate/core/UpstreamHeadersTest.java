package dev.slidegate.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

import org.junit.jupiter.api.Test;

import dev.slidegate.core.UpstreamHeaders.Form;
import dev.slidegate.core.UpstreamHeaders.Quota;
import dev.slidegate.core.UpstreamHeaders.Reading;

/**
 * The limits an upstream publishes, read from its header fields in every form (issue 39), and every hostile or broken
 * value bounded and said: a reading never makes a caller wait longer than the ceiling.
 */
class UpstreamHeadersTest {

    private static final long NOW = 1_795_000_000_000_000L; // an instant in 2026, microseconds
    private static final long HOUR = 3_600_000_000L;
    private final UpstreamHeaders all = new UpstreamHeaders(Form.all(), HOUR);

    /** Header fields as a response has them: names case-insensitive, each possibly on several lines. */
    private static Function<String, List<String>> fields(String... nameValue) {
        Map<String, List<String>> m = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        for (int i = 0; i < nameValue.length; i += 2) {
            m.merge(nameValue[i], List.of(nameValue[i + 1]), (a, b) -> {
                List<String> both = new java.util.ArrayList<>(a);
                both.addAll(b);
                return both;
            });
        }
        return m::get;
    }

    // the form Slidegate itself sends: its own responses read back exactly
    @Test
    void theIetfFieldsAreReadAsSlidegateWritesThem() {
        Reading r = all.read(fields("RateLimit-Policy", "\"products-2s\";q=500;w=2, \"products-1m\";q=10000;w=60",
                "RateLimit", "\"products-2s\";r=499;t=2, \"products-1m\";r=0;t=37"), NOW);
        assertEquals(List.of(new Quota("products-2s", "requests", 500, 2_000_000, 499, 2_000_000),
                new Quota("products-1m", "requests", 10_000, 60_000_000, 0, 37_000_000)), r.quotas());
        assertTrue(r.quotas().get(1).exhausted());
        assertEquals(-1, r.retryAfterMicros());
        assertEquals(List.of(), r.problems());
    }

    // a window is not a wait: a quota per day is read as one, whatever the ceiling on waits
    @Test
    void aLongWindowIsNotCut() {
        Reading r = all.read(fields("RateLimit-Policy", "\"daily\";q=1000;w=86400"), NOW);
        assertEquals(86_400_000_000L, r.quotas().get(0).windowMicros());
        assertEquals(List.of(), r.problems());
    }

    @Test
    void aUnitIsReadFromQu() {
        Reading r = all.read(fields("RateLimit-Policy", "\"tpm\";q=90000;w=60;qu=\"tokens\""), NOW);
        assertEquals("tokens", r.quotas().get(0).unit());
    }

    @Test
    void theEarlierDraftsAndTheLegacyFieldsAreRead() {
        Reading draft = all.read(fields("RateLimit-Limit", "100, 100;w=60", "RateLimit-Remaining", "7", "RateLimit-Reset",
                "30"), NOW);
        assertEquals(List.of(new Quota("default", "requests", 100, -1, 7, 30_000_000)), draft.quotas());
        // a reset as seconds from now, as an epoch in seconds (GitHub), as an epoch in milliseconds
        for (String reset : List.of("45", Long.toString(NOW / 1_000_000 + 45), Long.toString(NOW / 1000 + 45_000))) {
            Reading legacy = all.read(fields("X-RateLimit-Limit", "5000", "X-RateLimit-Remaining", "0", "X-RateLimit-Reset",
                    reset), NOW);
            assertEquals(List.of(new Quota("default", "requests", 5000, -1, 0, 45_000_000)), legacy.quotas(), reset);
        }
        Reading past = all.read(fields("X-RateLimit-Reset", Long.toString(NOW / 1_000_000 - 10)), NOW);
        assertEquals(0, past.quotas().get(0).resetMicros(), "an instant already past: nothing to wait for");
    }

    @Test
    void theLlmProvidersFieldsAreReadWithTheirDurations() {
        Reading r = all.read(fields("x-ratelimit-limit-requests", "500", "x-ratelimit-remaining-requests", "499",
                "x-ratelimit-reset-requests", "120ms", "x-ratelimit-limit-tokens", "90000", "x-ratelimit-remaining-tokens",
                "0", "x-ratelimit-reset-tokens", "6m0s"), NOW);
        assertEquals(List.of(new Quota("requests", "requests", 500, -1, 499, 120_000),
                new Quota("tokens", "tokens", 90_000, -1, 0, 360_000_000)), r.quotas());
        assertEquals(3_723_500_000L,
                new UpstreamHeaders(Form.all(), 2 * HOUR).read(fields("x-ratelimit-reset-tokens", "1h2m3.5s"), NOW).quotas()
                        .get(0)
                        .resetMicros());
        assertEquals(1_000_000, all.read(fields("x-ratelimit-reset-requests", "1s"), NOW).quotas().get(0).resetMicros());
    }

    @Test
    void retryAfterIsReadAsSecondsOrAnHttpDate() {
        assertEquals(30_000_000, all.read(fields("Retry-After", "30"), NOW).retryAfterMicros());
        String date = DateTimeFormatter.RFC_1123_DATE_TIME
                .format(Instant.ofEpochSecond(NOW / 1_000_000 + 120).atOffset(ZoneOffset.UTC));
        assertEquals(120_000_000, all.read(fields("Retry-After", date), NOW).retryAfterMicros());
        String past = DateTimeFormatter.RFC_1123_DATE_TIME
                .format(Instant.ofEpochSecond(NOW / 1_000_000 - 120).atOffset(ZoneOffset.UTC));
        assertEquals(0, all.read(fields("Retry-After", past), NOW).retryAfterMicros());
    }

    // hostile or broken values: left out or cut to the ceiling, each said once, never an exception, never a wait past
    // the ceiling
    @Test
    void hostileValuesAreBoundedAndSaid() {
        List<String[]> cases = List.of(
                new String[] { "X-RateLimit-Remaining", "-1", "not a whole number" },
                new String[] { "X-RateLimit-Limit", "lots", "not a whole number" },
                new String[] { "X-RateLimit-Limit", "99999999999999999999999", "larger than any upstream means" },
                new String[] { "X-RateLimit-Reset", "99999999", "longer than the ceiling" },
                new String[] { "X-RateLimit-Reset", Long.toString(NOW / 1_000_000 + 10L * 365 * 86400),
                        "longer than the ceiling" },
                new String[] { "RateLimit-Reset", "1e9", "not a whole number" },
                new String[] { "Retry-After", "31536000", "longer than the ceiling" },
                new String[] { "Retry-After", "soon", "neither seconds nor an HTTP date" },
                new String[] { "x-ratelimit-reset-tokens", "8760h", "longer than the ceiling" },
                new String[] { "x-ratelimit-reset-tokens", "-5s", "not a duration" },
                new String[] { "x-ratelimit-reset-tokens", "1d", "not a duration" },
                new String[] { "RateLimit", "\"x\";r=-3;t=5", "not a whole number" },
                new String[] { "RateLimit", "\"x\";r=3;t=99999999999", "longer than the ceiling" },
                new String[] { "RateLimit-Policy", "no item here;;;", "not an item" },
                new String[] { "RateLimit", "x".repeat(5000), "characters: left out" },
                new String[] { "X-RateLimit-Limit", "1\u0000\r\n2", "not a whole number" },
                // issue 56: what overflowed the event loop's stack, or cost it a third of a second, before
                new String[] { "x-ratelimit-reset-requests", "1m".repeat(1500), "characters: left out" },
                new String[] { "x-ratelimit-reset-tokens", "1m".repeat(40), "not a duration" },
                new String[] { "Retry-After", "1".repeat(500), "characters: left out" },
                new String[] { "RateLimit-Policy", "\"" + "a".repeat(2500) + "\";q=5;w=1", "quota name of 2500" },
                new String[] { "RateLimit-Policy", "\"" + "\\\"".repeat(1000), "not an item" });
        for (String[] c : cases) {
            Reading r = all.read(fields(c[0], c[1]), NOW);
            assertEquals(1, r.problems().size(), c[0] + ": " + c[1] + " -> " + r.problems());
            assertTrue(r.problems().get(0).contains(c[2]), r.problems().get(0));
            assertTrue(r.problems().get(0).length() < 200, "a problem shows little of the value: " + r.problems().get(0));
            assertTrue(r.retryAfterMicros() <= HOUR);
            for (Quota q : r.quotas()) {
                assertTrue(q.resetMicros() <= HOUR && q.remaining() >= -1 && q.limit() >= -1, q.toString());
            }
        }
    }

    // issue 56: a parameter followed by thousands of spaces, and items past the sixteenth, are read in one pass
    @Test
    void longRunsOfSpacesAndManyItemsAreReadInOnePass() {
        Reading spaces = all.read(fields("RateLimit-Policy", "x;a=" + " ".repeat(4000) + ";q=7;w=2"), NOW);
        assertEquals(List.of(new Quota("x", "requests", 7, 2_000_000, -1, -1)), spaces.quotas());
        StringBuilder many = new StringBuilder();
        for (int i = 0; i < 200; i++) {
            many.append("\"q").append(i).append("\";q=").append(i + 1).append(";w=").append(i + 1).append(", ");
        }
        Reading r = all.read(fields("RateLimit-Policy", many.toString()), NOW);
        assertEquals(UpstreamHeaders.MAX_ITEMS, r.quotas().size());
        // a quoted name may hold commas and semicolons; a bare key is ?1
        Reading quoted = all.read(fields("RateLimit-Policy", "\"a, b;c\";q=3;w=4;x", "RateLimit", "\"a, b;c\";r=1;t=2"),
                NOW);
        assertEquals(List.of(new Quota("a, b;c", "requests", 3, 4_000_000, 1, 2_000_000)), quoted.quotas());
    }

    // which forms are read is the caller's choice: a form left out is not read, whatever the response says
    @Test
    void onlyTheFormsAskedForAreRead() {
        UpstreamHeaders onlyRetry = new UpstreamHeaders(EnumSet.of(Form.RETRY_AFTER), HOUR);
        Reading r = onlyRetry.read(fields("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "50", "Retry-After", "5"), NOW);
        assertEquals(List.of(), r.quotas());
        assertEquals(5_000_000, r.retryAfterMicros());
        assertTrue(new UpstreamHeaders(EnumSet.noneOf(Form.class), HOUR).read(fields("Retry-After", "5"), NOW).isEmpty());
    }

    @Test
    void aResponseWithoutLimitsSaysNothing() {
        Reading r = all.read(fields("Content-Type", "application/json"), NOW);
        assertTrue(r.isEmpty());
        assertEquals(List.of(), r.problems());
    }

    // 20 000 responses of random bytes in every field read: never an exception, never a wait past the ceiling, never a
    // negative count
    @Test
    void randomFieldsNeverBreakTheReading() {
        java.util.Random random = new java.util.Random(39);
        String alphabet = "0123456789 ;,=\"-.:hmsuµnqrtwx\u0000\r\n\u00ff\u2028abcdefGMT";
        String[] names = { "RateLimit", "RateLimit-Policy", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset",
                "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After", "x-ratelimit-limit-tokens",
                "x-ratelimit-remaining-tokens", "x-ratelimit-reset-tokens", "x-ratelimit-reset-requests" };
        for (int i = 0; i < 20_000; i++) {
            String[] nv = new String[2 * (1 + random.nextInt(4))];
            for (int j = 0; j < nv.length; j += 2) {
                StringBuilder v = new StringBuilder();
                for (int k = random.nextInt(30); k > 0; k--) {
                    v.append(alphabet.charAt(random.nextInt(alphabet.length())));
                }
                nv[j] = names[random.nextInt(names.length)];
                nv[j + 1] = v.toString();
            }
            Reading r = all.read(fields(nv), NOW);
            assertTrue(r.retryAfterMicros() <= HOUR, r.toString());
            for (Quota q : r.quotas()) {
                assertTrue(q.resetMicros() <= HOUR && q.resetMicros() >= -1 && q.remaining() >= -1 && q.limit() >= -1
                        && q.windowMicros() >= -1, java.util.Arrays.toString(nv) + " -> " + q);
            }
        }
    }
}
