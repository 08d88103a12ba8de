package dev.slidegate.core;

import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Reads the limits an upstream API publishes about its caller in a response's header fields (issue 39): what quota
 * it has, how much is left and when it comes back, in every common form. Nothing here trusts the upstream: a value
 * that is negative, not a number, absurdly large or a reset years away is left out or bounded, and said once in
 * {@link Reading#problems()} (for a log line), so a broken or hostile upstream can never stop its callers for longer
 * than the ceiling the caller sets.
 *
 * <p>
 * The forms ({@link Form}), each read only when asked for:
 * <ul>
 * <li>{@code IETF}: {@code RateLimit-Policy: "name";q=100;w=60} and {@code RateLimit: "name";r=42;t=17} (the
 * structured fields of draft-ietf-httpapi-ratelimit-headers, as Slidegate itself sends them; {@code qu} names the
 * unit);</li>
 * <li>{@code DRAFT}: the earlier drafts' {@code RateLimit-Limit}, {@code RateLimit-Remaining}, {@code RateLimit-Reset}
 * (seconds);</li>
 * <li>{@code LEGACY}: {@code X-RateLimit-Limit}, {@code X-RateLimit-Remaining}, {@code X-RateLimit-Reset} (seconds
 * from now, or an instant since the epoch in seconds or milliseconds, told apart by size);</li>
 * <li>{@code RETRY_AFTER}: {@code Retry-After} in seconds or as an HTTP date;</li>
 * <li>{@code LLM}: {@code x-ratelimit-limit-requests}, {@code x-ratelimit-remaining-requests},
 * {@code x-ratelimit-reset-requests} and the {@code -tokens} family, resets written as durations ({@code 1s},
 * {@code 6m0s}, {@code 250ms}, {@code 1h2m3.5s}).</li>
 * </ul>
 */
public final class UpstreamHeaders {

    /** The forms of header fields an upstream may publish its limits in. */
    public enum Form {
        IETF,
        DRAFT,
        LEGACY,
        RETRY_AFTER,
        LLM;

        /** Every form: the default. */
        public static Set<Form> all() {
            return EnumSet.allOf(Form.class);
        }

        /** How configuration names it: {@code ietf}, {@code retry-after}. */
        public String configName() {
            return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
        }

        /**
         * The forms configuration names ({@code ietf,draft,legacy,retry-after,llm}, any case), or {@code none}.
         *
         * @throws IllegalArgumentException naming what would be valid
         */
        public static Set<Form> parse(List<String> names) {
            Set<Form> forms = EnumSet.noneOf(Form.class);
            for (String raw : names) {
                String n = raw == null ? "" : raw.trim().toLowerCase(java.util.Locale.ROOT);
                if (n.equals("none") && names.size() == 1) {
                    return forms;
                }
                Form match = null;
                for (Form f : values()) {
                    if (f.configName().equals(n)) {
                        match = f;
                    }
                }
                if (match == null) {
                    throw new IllegalArgumentException("'" + raw + "' is not a form of upstream header fields: expected "
                            + "ietf, draft, legacy, retry-after or llm, several joined by commas, or none alone");
                }
                forms.add(match);
            }
            return forms;
        }
    }

    /**
     * One quota the upstream published: its name (the IETF policy name, {@code requests} or {@code tokens} for the LLM
     * fields, {@code default} for the others), its unit, and what was said of it; -1 where it said nothing.
     *
     * @param limit permits per window
     * @param windowMicros the window (IETF {@code w}), -1 when not said
     * @param remaining permits left
     * @param resetMicros microseconds until permits come back (bounded by the ceiling)
     */
    public record Quota(String name, String unit, long limit, long windowMicros, long remaining, long resetMicros) {

        /** Whether the upstream said that nothing is left until {@link #resetMicros}. */
        public boolean exhausted() {
            return remaining == 0;
        }
    }

    /**
     * What one response said.
     *
     * @param quotas each quota published, in the order first seen
     * @param retryAfterMicros a {@code Retry-After}, bounded by the ceiling; -1 without one
     * @param problems what was left out or bounded, one sentence each, without the caller's data beyond the field's
     *        name and value (truncated)
     */
    public record Reading(List<Quota> quotas, long retryAfterMicros, List<String> problems) {

        /** Whether the response said anything at all about limits. */
        public boolean isEmpty() {
            return quotas.isEmpty() && retryAfterMicros < 0;
        }
    }

    /** The largest count believed: a quota or a remainder above it is not a number the upstream meant. */
    static final long MAX_COUNT = 1_000_000_000_000L;
    /** The longest value of a field that holds one number, duration or date; a longer one is left out unread. */
    static final int MAX_VALUE = 128;
    /** The longest line of a structured list field ({@code RateLimit}, {@code RateLimit-Policy}) read. */
    static final int MAX_LIST = 4096;
    /** The most items read of a structured list field, over all its lines. */
    static final int MAX_ITEMS = 16;
    /** The longest quota name believed. */
    static final int MAX_NAME = 100;
    /** The most parameters read of one item. */
    static final int MAX_PARAMS = 16;
    private static final long SECOND = 1_000_000L;

    private final Set<Form> forms;
    private final long ceilingMicros;

    /**
     * @param forms which forms to read
     * @param ceilingMicros the longest reset or retry-after believed: a longer one is cut to it (and said)
     */
    public UpstreamHeaders(Set<Form> forms, long ceilingMicros) {
        if (ceilingMicros < 1) {
            throw new IllegalArgumentException("the ceiling must be positive, was " + ceilingMicros);
        }
        this.forms = forms.isEmpty() ? EnumSet.noneOf(Form.class) : EnumSet.copyOf(forms);
        this.ceilingMicros = ceilingMicros;
    }

    /**
     * Reads one response.
     *
     * @param header the values of a header field by its name, case-insensitive; {@code null} or empty when absent
     * @param nowEpochMicros this instance's clock, for instants the upstream gives (HTTP dates, epoch resets)
     */
    public Reading read(Function<String, List<String>> header, long nowEpochMicros) {
        Map<String, long[]> quotas = new LinkedHashMap<>(); // name -> {limit, window, remaining, reset}
        Map<String, String> units = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        if (forms.contains(Form.IETF)) {
            ietf(header, quotas, units, problems);
        }
        if (forms.contains(Form.DRAFT)) {
            plain(header, "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", false, nowEpochMicros, quotas, units,
                    problems);
        }
        if (forms.contains(Form.LEGACY)) {
            plain(header, "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", true, nowEpochMicros, quotas,
                    units, problems);
        }
        if (forms.contains(Form.LLM)) {
            for (String unit : List.of("requests", "tokens")) {
                llm(header, unit, quotas, units, problems);
            }
        }
        long retryAfter = -1;
        if (forms.contains(Form.RETRY_AFTER)) {
            String v = first(header, "Retry-After", problems);
            if (v != null) {
                retryAfter = retryAfter(v, nowEpochMicros, problems);
            }
        }
        List<Quota> out = new ArrayList<>();
        quotas.forEach((name, q) -> {
            if (q[0] >= 0 || q[2] >= 0 || q[3] >= 0) {
                out.add(new Quota(name, units.getOrDefault(name, "requests"), q[0], q[1], q[2], q[3]));
            }
        });
        return new Reading(List.copyOf(out), retryAfter, List.copyOf(problems));
    }

    private void ietf(Function<String, List<String>> header, Map<String, long[]> quotas, Map<String, String> units,
            List<String> problems) {
        for (StructuredList.Item item : items(header, "RateLimit-Policy", problems)) {
            if (!named(item, "RateLimit-Policy", problems)) {
                continue;
            }
            long[] q = quota(quotas, item.name());
            q[0] = count(item.params().get("q"), "RateLimit-Policy q", problems);
            long w = count(item.params().get("w"), "RateLimit-Policy w", problems); // a window, not a wait: not cut
            q[1] = w < 0 ? -1 : w * SECOND;
            String unit = item.params().get("qu");
            if (unit != null) {
                units.put(item.name(), unquote(unit));
            }
        }
        for (StructuredList.Item item : items(header, "RateLimit", problems)) {
            if (!named(item, "RateLimit", problems)) {
                continue;
            }
            long[] q = quota(quotas, item.name());
            q[2] = count(item.params().get("r"), "RateLimit r", problems);
            q[3] = seconds(item.params().get("t"), "RateLimit t", problems);
        }
    }

    /** Whether an item's name is short enough to be a quota's ({@link #MAX_NAME}); a longer one is said and left out. */
    private static boolean named(StructuredList.Item item, String field, List<String> problems) {
        if (item.name().length() <= MAX_NAME) {
            return true;
        }
        problems.add(field + ": a quota name of " + item.name().length() + " characters: left out");
        return false;
    }

    private void plain(Function<String, List<String>> header, String limitName, String remainingName, String resetName,
            boolean epochAllowed, long now, Map<String, long[]> quotas, Map<String, String> units, List<String> problems) {
        String limit = first(header, limitName, problems);
        String remaining = first(header, remainingName, problems);
        String reset = first(header, resetName, problems);
        if (limit == null && remaining == null && reset == null) {
            return;
        }
        long[] q = quota(quotas, "default");
        if (limit != null) {
            // the drafts allowed "100, 100;w=60": the first item is the quota in force
            String first = limit.split(",", 2)[0].split(";", 2)[0].trim();
            q[0] = count(first, limitName, problems);
        }
        if (remaining != null) {
            q[2] = count(remaining.trim(), remainingName, problems);
        }
        if (reset != null) {
            q[3] = epochAllowed ? secondsOrInstant(reset.trim(), resetName, now, problems)
                    : seconds(reset.trim(), resetName, problems);
        }
    }

    private void llm(Function<String, List<String>> header, String unit, Map<String, long[]> quotas,
            Map<String, String> units, List<String> problems) {
        String limit = first(header, "x-ratelimit-limit-" + unit, problems);
        String remaining = first(header, "x-ratelimit-remaining-" + unit, problems);
        String reset = first(header, "x-ratelimit-reset-" + unit, problems);
        if (limit == null && remaining == null && reset == null) {
            return;
        }
        long[] q = quota(quotas, unit);
        units.put(unit, unit);
        if (limit != null) {
            q[0] = count(limit.trim(), "x-ratelimit-limit-" + unit, problems);
        }
        if (remaining != null) {
            q[2] = count(remaining.trim(), "x-ratelimit-remaining-" + unit, problems);
        }
        if (reset != null) {
            q[3] = duration(reset.trim(), "x-ratelimit-reset-" + unit, problems);
        }
    }

    private static long[] quota(Map<String, long[]> quotas, String name) {
        return quotas.computeIfAbsent(name, n -> new long[] { -1, -1, -1, -1 });
    }

    /** A whole count, 0 to {@link #MAX_COUNT}; -1 (and a problem) otherwise, or -1 quietly when absent. */
    private static long count(String v, String field, List<String> problems) {
        return number(v, field, MAX_COUNT, problems);
    }

    /** A whole number, 0 to {@code max}; -1 (and a problem) otherwise, or -1 quietly when absent. */
    private static long number(String v, String field, long max, List<String> problems) {
        if (v == null) {
            return -1;
        }
        String t = v.trim();
        if (!digits(t)) {
            problems.add(field + ": '" + shown(t) + "' is not a whole number: left out");
            return -1;
        }
        try {
            long n = Long.parseLong(t);
            if (n <= max) {
                return n;
            }
        } catch (NumberFormatException tooLong) {
            // said below
        }
        problems.add(field + ": '" + shown(t) + "' is larger than any upstream means: left out");
        return -1;
    }

    /** Whole seconds from now, as microseconds, bounded by the ceiling. */
    private long seconds(String v, String field, List<String> problems) {
        if (v == null) {
            return -1;
        }
        long s = count(v, field, problems); // at most 10^12 s: 10^18 us, no overflow
        return s < 0 ? -1 : bounded(s * SECOND, field, problems);
    }

    /**
     * A reset as legacy fields write it: seconds from now, or an instant since the epoch in seconds (from 10^9, 2001)
     * or milliseconds (from 10^12).
     */
    private long secondsOrInstant(String v, String field, long now, List<String> problems) {
        long n = number(v, field, 100_000_000_000_000L, problems); // up to an instant in milliseconds, year 5138
        if (n < 0) {
            return -1;
        }
        long micros;
        if (n >= 1_000_000_000_000L) {
            micros = n * 1000 - now;
        } else if (n >= 1_000_000_000L) {
            micros = n * SECOND - now;
        } else {
            micros = n * SECOND;
        }
        if (micros < 0) {
            return 0; // an instant already past: nothing to wait for
        }
        return bounded(micros, field, problems);
    }

    /** A duration as the LLM providers write it ({@code 6m0s}, {@code 250ms}, {@code 1h2m3.5s}), or whole seconds. */
    private long duration(String v, String field, List<String> problems) {
        if (digits(v)) {
            return seconds(v, field, problems);
        }
        double micros = GoDuration.micros(v);
        if (micros < 0) {
            problems.add(field + ": '" + shown(v) + "' is not a duration (e.g. 1s, 6m0s, 250ms): left out");
            return -1;
        }
        return bounded(micros >= Long.MAX_VALUE ? Long.MAX_VALUE : (long) Math.ceil(micros), field, problems);
    }

    private long retryAfter(String v, long now, List<String> problems) {
        String t = v.trim();
        if (digits(t)) {
            return seconds(t, "Retry-After", problems);
        }
        try {
            long at = ZonedDateTime.parse(t, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant().toEpochMilli() * 1000;
            return Math.max(0, bounded(at - now, "Retry-After", problems));
        } catch (DateTimeParseException e) {
            problems.add("Retry-After: '" + shown(t) + "' is neither seconds nor an HTTP date: left out");
            return -1;
        }
    }

    /** A time the upstream asks its callers to wait, at most the ceiling. */
    private long bounded(long micros, String field, List<String> problems) {
        if (micros > ceilingMicros) {
            problems.add(field + ": a wait of " + (micros == Long.MAX_VALUE ? "forever" : micros / SECOND + " s")
                    + " is longer than the ceiling of " + ceilingMicros / SECOND + " s: cut to it");
            return ceilingMicros;
        }
        return micros;
    }

    /** The items of a structured list field, over all its lines; a line that is too long is left out unread. */
    private static List<StructuredList.Item> items(Function<String, List<String>> header, String name,
            List<String> problems) {
        List<String> values = header.apply(name);
        List<StructuredList.Item> items = new ArrayList<>();
        if (values == null) {
            return items;
        }
        int members = 0;
        for (String line : values) {
            if (line == null || members >= MAX_ITEMS) {
                continue;
            }
            if (line.length() > MAX_LIST) {
                problems.add(name + ": a field of " + line.length() + " characters: left out");
                members++;
                continue;
            }
            members += StructuredList.parse(line, MAX_ITEMS - members, MAX_PARAMS, items, bad -> problems
                    .add(name + ": '" + shown(bad) + "' is not an item like \"name\";q=100;w=60: left out"));
        }
        return items;
    }

    private static String unquote(String v) {
        return v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"") ? v.substring(1, v.length() - 1) : v;
    }

    /** The first value of a field; one longer than {@link #MAX_VALUE} is read as a problem, never parsed. */
    private static String first(Function<String, List<String>> header, String name, List<String> problems) {
        List<String> values = header.apply(name);
        String v = values == null || values.isEmpty() ? null : values.get(0);
        if (v != null && v.length() > MAX_VALUE) {
            problems.add(name + ": a field of " + v.length() + " characters: left out");
            return null;
        }
        return v;
    }

    /** Whether {@code t} is 1 to 40 ASCII digits. */
    static boolean digits(String t) {
        if (t.isEmpty() || t.length() > 40) {
            return false;
        }
        for (int i = 0; i < t.length(); i++) {
            char c = t.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    /** A value as a problem shows it: at most 40 characters, printable. */
    private static String shown(String v) {
        String s = v.length() > 40 ? v.substring(0, 40) + "…" : v;
        StringBuilder b = new StringBuilder(s.length());
        for (char c : s.toCharArray()) {
            b.append(c < 0x20 || c == 0x7f ? '?' : c);
        }
        return b.toString();
    }
}
