package dev.slidegate.api;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A named set of limits checked together: a call is admitted only if every limit admits it, and then
 * it is charged to all of them.
 *
 * @param name unique name; letters, digits and {@code . _ # -}; appears in keys, headers and admin
 * @param limits at least one; no two with the same window
 * @param strategy how permits are counted per window; {@code null} for a policy of calls in flight, which is a primitive
 *        of its own, made by {@link #inFlight(String, int, long, String)}
 * @param key where the caller's key comes from ({@code ip}, {@code user}, {@code global},
 *        {@code header:<Name>}); interpreted by the layer that calls the store
 * @param countRejected whether refused attempts are charged too (brute-force protection)
 * @param dryRun whether refusals are only reported (headers, logs), never enforced: for rolling out a limit
 * @param cells for {@link Strategy#SLIDING_COUNTER}: cells per window, 1 to 100
 * @param failMode what to do when a remote store cannot decide
 * @param maxWaitMicros how long a call may wait for its permit instead of being refused, 0 to one day; 0 (the
 *        default): refused at once. A call whose permit frees within it is admitted for that instant and held until
 *        then; one whose permit frees later is refused at once
 * @param unit what a permit counts: {@value #REQUESTS} (the default), or a unit of the service's own ({@code tokens},
 *        {@code bytes}: lower-case letters, digits and '-', at most 32); a policy of calls in flight counts
 *        {@value #CONCURRENT_REQUESTS}. Said in the RateLimit fields (the draft's {@code qu}), problems, metrics and the
 *        admin
 */
public record Policy(String name, List<Limit> limits, Strategy strategy, String key, boolean countRejected, boolean dryRun,
        int cells, FailMode failMode, long maxWaitMicros, String unit) {

    /** The unit of a policy that names none: one permit per call. */
    public static final String REQUESTS = "requests";

    /** The unit of a policy of calls in flight: one slot per call running. */
    public static final String CONCURRENT_REQUESTS = "concurrent-requests";

    private static final Pattern UNIT = Pattern.compile("[a-z][a-z0-9-]{0,31}");

    /**
     * Checks a unit's spelling.
     *
     * @throws IllegalArgumentException saying what a unit may be
     */
    public static String checkUnit(String unit) {
        if (unit == null || !UNIT.matcher(unit).matches()) {
            throw new IllegalArgumentException("'" + unit + "' is not a unit: use a lower-case word of at most 32 letters, "
                    + "digits or '-' (requests, tokens, bytes, ...)");
        }
        return unit;
    }

    /** The longest {@code max-wait} a policy may have: one day. */
    public static final long MAX_WAIT_LIMIT_MICROS = 86_400_000_000L;

    /** The number of cells per window when none is configured. */
    public static final int DEFAULT_CELLS = 10;

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._#-]{1,64}");

    public Policy {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(
                    "'" + name + "' is not a policy name: use 1 to 64 letters, digits, '.', '_', '#' or '-'");
        }
        if (limits == null || limits.isEmpty()) {
            throw new IllegalArgumentException("policy '" + name + "' has no limits");
        }
        List<Limit> zoned = new java.util.ArrayList<>(limits.size());
        for (Limit l : limits) { // a calendar limit no zone was given for counts in UTC
            zoned.add(l == null ? null : l.inZone(java.time.ZoneOffset.UTC));
        }
        limits = List.copyOf(zoned);
        Set<Long> windows = new HashSet<>();
        for (Limit l : limits) {
            if (l.calendar() && strategy != Strategy.FIXED_WINDOW) {
                throw new IllegalArgumentException("policy '" + name + "' counts " + l + " per calendar period, which "
                        + "only strategy fixed-window counts (a period is a fixed window of its own length); it has "
                        + (strategy == null ? "max-in-flight" : strategy.configName()));
            }
            if (!windows.add(l.windowMicros())) {
                throw new IllegalArgumentException("policy '" + name + "' has two limits with the window " + l.windowText()
                        + ": merge them into one");
            }
        }
        boolean inFlight = strategy == null;
        if (inFlight && !CONCURRENT_REQUESTS.equals(unit)) {
            throw new IllegalArgumentException("policy '" + name + "' has no strategy (a policy of calls in flight is "
                    + "made by Policy.inFlight)");
        }
        if (inFlight && (limits.size() != 1 || countRejected)) {
            throw new IllegalArgumentException("policy '" + name + "' limits calls in flight: it has exactly one limit "
                    + "(max-in-flight and the lease time) and charges no refused call (count-rejected)");
        }
        if (cells < 1 || cells > 100) {
            throw new IllegalArgumentException("'" + cells + "' cells: expected 1 to 100");
        }
        if (failMode == null) {
            failMode = FailMode.LOCAL;
        }
        if (maxWaitMicros < 0 || maxWaitMicros > MAX_WAIT_LIMIT_MICROS) {
            throw new IllegalArgumentException("policy '" + name + "' has a max-wait of " + maxWaitMicros
                    + " us: expected 0 (refuse at once) to one day");
        }
        if (unit == null) {
            unit = REQUESTS;
        }
        checkUnit(unit);
        if (inFlight != unit.equals(CONCURRENT_REQUESTS)) {
            throw new IllegalArgumentException(inFlight
                    ? "policy '" + name + "' limits calls in flight: it counts " + CONCURRENT_REQUESTS + ", not " + unit
                    : "policy '" + name + "' counts calls per window: " + CONCURRENT_REQUESTS
                            + " is the unit of max-in-flight");
        }
    }

    /**
     * A policy of calls in flight, which never wait and fail closed: at most {@code maxInFlight} calls of one key run at
     * once, each holding a lease until it ends; a lease its instance stops renewing (the instance died) frees its slot
     * {@code leaseMicros} after its last renewal.
     */
    public static Policy inFlight(String name, int maxInFlight, long leaseMicros, String key) {
        return inFlight(name, maxInFlight, leaseMicros, key, false, FailMode.CLOSED, 0);
    }

    /** A policy of calls in flight (see {@link #inFlight(String, int, long, String)}) with its fail mode and max-wait. */
    public static Policy inFlight(String name, int maxInFlight, long leaseMicros, String key, boolean dryRun,
            FailMode failMode, long maxWaitMicros) {
        return new Policy(name, List.of(new Limit(maxInFlight, leaseMicros)), null, key, false, dryRun, DEFAULT_CELLS,
                failMode, maxWaitMicros, CONCURRENT_REQUESTS);
    }

    /** Whether this policy limits calls in flight rather than counting permits per window. */
    public boolean inFlight() {
        return strategy == null;
    }

    /** How it counts, as configured: a strategy's name, or {@code max-in-flight}. */
    public String counting() {
        return strategy == null ? "max-in-flight" : strategy.configName();
    }

    /** Whether a call it admitted can be settled after it ran ({@link Strategy#settles()}). */
    public boolean settles() {
        return strategy != null && strategy.settles();
    }

    /** A policy counting requests. */
    public Policy(String name, List<Limit> limits, Strategy strategy, String key, boolean countRejected, boolean dryRun,
            int cells, FailMode failMode, long maxWaitMicros) {
        this(name, limits, strategy, key, countRejected, dryRun, cells, failMode, maxWaitMicros, null);
    }

    /** A policy whose calls never wait: refused at once. */
    public Policy(String name, List<Limit> limits, Strategy strategy, String key, boolean countRejected, boolean dryRun,
            int cells, FailMode failMode) {
        this(name, limits, strategy, key, countRejected, dryRun, cells, failMode, 0);
    }

    /** A policy with the default fail mode. */
    public Policy(String name, List<Limit> limits, Strategy strategy, String key, boolean countRejected, boolean dryRun,
            int cells) {
        this(name, limits, strategy, key, countRejected, dryRun, cells, FailMode.LOCAL);
    }

    /** A policy with the default number of cells. */
    public Policy(String name, List<Limit> limits, Strategy strategy, String key, boolean countRejected, boolean dryRun) {
        this(name, limits, strategy, key, countRejected, dryRun, DEFAULT_CELLS);
    }

    /** A policy that enforces its refusals. */
    public Policy(String name, List<Limit> limits, Strategy strategy, String key, boolean countRejected) {
        this(name, limits, strategy, key, countRejected, false);
    }

    /** This policy under another name (a plan's policy, the local share of the fail modes). */
    public Policy withName(String name) {
        return new Policy(name, limits, strategy, key, countRejected, dryRun, cells, failMode, maxWaitMicros, unit);
    }

    /** This policy with other limits (an override, the local share of the fail modes). */
    public Policy withLimits(List<Limit> limits) {
        java.time.ZoneId zone = zone();
        List<Limit> zoned = limits.stream().map(l -> l.inZone(zone)).toList(); // a calendar limit counts in this zone
        return new Policy(name, zoned, strategy, key, countRejected, dryRun, cells, failMode, maxWaitMicros, unit);
    }

    /** This policy, reporting only ({@code true}) or enforcing ({@code false}) its refusals. */
    public Policy withDryRun(boolean dryRun) {
        return new Policy(name, limits, strategy, key, countRejected, dryRun, cells, failMode, maxWaitMicros, unit);
    }

    /** This policy with another max-wait (a plan's own). */
    public Policy withMaxWait(long maxWaitMicros) {
        return new Policy(name, limits, strategy, key, countRejected, dryRun, cells, failMode, maxWaitMicros, unit);
    }

    /** The largest N of all limits: the most entries an exact log ever needs to keep. */
    public int maxPermits() {
        int max = 0;
        for (Limit l : limits) {
            max = Math.max(max, l.permits());
        }
        return max;
    }

    /** The longest window: after this long without a call a key holds no state. */
    public long maxWindowMicros() {
        long max = 0;
        for (Limit l : limits) {
            max = Math.max(max, l.windowMicros());
        }
        return max;
    }

    /** For a policy of calls in flight: the most calls of one key in flight at once. */
    public int maxInFlight() {
        return limits.get(0).permits();
    }

    /** For a policy of calls in flight: how long a lease lives unless its instance renews it. */
    public long leaseMicros() {
        return limits.get(0).windowMicros();
    }

    /** The time zone its calendar limits count in (the first one's), UTC when it has none. */
    public java.time.ZoneId zone() {
        for (Limit l : limits) {
            if (l.periods() instanceof Calendar c && c.zone() != null) {
                return c.zone();
            }
        }
        return java.time.ZoneOffset.UTC;
    }

    /** This policy counting another unit. */
    public Policy withUnit(String unit) {
        return new Policy(name, limits, strategy, key, countRejected, dryRun, cells, failMode, maxWaitMicros, unit);
    }

    /** The quota units the IETF draft registers: sent as they are. */
    public static final java.util.Set<String> REGISTERED_UNITS = java.util.Set.of(REQUESTS, "content-bytes",
            CONCURRENT_REQUESTS);

    /**
     * Its unit as the RateLimit fields say it ({@code qu}): a unit the draft registers as it is; one of the service's
     * own vendor-prefixed, as the draft asks: {@code acme-tokens} as it is (it holds a prefix), {@code tokens} as
     * {@code slidegate-tokens}.
     */
    public String fieldUnit() {
        return REGISTERED_UNITS.contains(unit) || unit.indexOf('-') > 0 ? unit : "slidegate-" + unit;
    }

    /** Whether its permits count something else than requests (tokens, bytes): said wherever its limits are. */
    public boolean countsOwnUnit() {
        return !inFlight() && !REQUESTS.equals(unit);
    }

    /** The quota name of limit {@code i} in the RateLimit fields: {@code products-2s}; a concurrency policy's own name. */
    public String quotaName(int i) {
        if (inFlight()) {
            return name;
        }
        return name + "-" + limits.get(i).windowText();
    }
}
