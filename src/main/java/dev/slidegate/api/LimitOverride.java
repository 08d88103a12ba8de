package dev.slidegate.api;

import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A change made at runtime to whom a policy limits and how: new limits (same strategy, windows carried
 * over, never reset), a block (every call refused) or an exemption (never refused, still counted), for a
 * whole policy, one plan of it, or one caller key, until it expires.
 *
 * <p>
 * The most specific override in force decides a call: the caller's key, else the caller's plan, else
 * the policy.
 *
 * @param target what it applies to
 * @param limits the new limits, or empty for a block or an exemption
 * @param block whether every call is refused (429, {@code Retry-After} = the time left)
 * @param exempt whether calls are never refused (they are still decided, counted and shown)
 * @param expiresAt when it stops applying, or {@code null} for never
 * @param reason why, for operators (never shown to callers); may be {@code null}
 * @param setBy who set it (the admin user, or the source's name)
 * @param setAt when it was set
 */
public record LimitOverride(Target target, List<Limit> limits, boolean block, boolean exempt, Instant expiresAt, String reason,
        String setBy, Instant setAt) {

    /** The longest reason kept. */
    public static final int MAX_REASON = 500;

    /**
     * What an override applies to: a policy, a plan of it, or one caller key under it.
     *
     * @param policy the policy's name; for a key, also a plan's policy as the admin lists it ({@code login.gold})
     * @param plan the plan, or {@code null}
     * @param key the caller key as the admin listing shows it ({@code ip:203.0.113.7}), or {@code null}
     */
    public record Target(String policy, String plan, String key) {

        /** The longest caller key an override can name (the keys Slidegate makes are at most 100). */
        public static final int MAX_KEY = 200;
        private static final Pattern POLICY = Pattern.compile("[A-Za-z0-9._#-]{1,64}");
        private static final Pattern PLAN = Pattern.compile("[A-Za-z0-9_-]{1,32}");

        public Target {
            if (policy == null || !POLICY.matcher(policy).matches()) {
                throw new IllegalArgumentException("'" + policy + "' is not a policy name");
            }
            if (plan != null && !PLAN.matcher(plan).matches()) {
                throw new IllegalArgumentException(
                        "'" + plan + "' is not a plan name: use 1 to 32 letters, digits, '_' or '-'");
            }
            if (plan != null && key != null) {
                throw new IllegalArgumentException("an override is for a policy, a plan or a key, not a plan and a key");
            }
            if (key != null) {
                if (key.isEmpty() || key.length() > MAX_KEY) {
                    throw new IllegalArgumentException("a key of an override holds 1 to " + MAX_KEY + " characters, not "
                            + key.length());
                }
                if (!printable(key)) {
                    throw new IllegalArgumentException(
                            "a key of an override holds no control characters, line separators or format characters "
                                    + "(such as bidirectional overrides)");
                }
            }
        }

        /**
         * For logs: {@code policy 'login'}, {@code plan 'gold' of policy 'api'}, {@code key 'ip:1.2.3.4' of policy 'login'}.
         */
        @Override
        public String toString() {
            return plan != null ? "plan '" + plan + "' of policy '" + policy + "'"
                    : key != null ? "key '" + key + "' of policy '" + policy + "'" : "policy '" + policy + "'";
        }
    }

    public LimitOverride {
        if (target == null) {
            throw new IllegalArgumentException("an override needs a target");
        }
        limits = limits == null ? List.of() : List.copyOf(limits);
        int effects = (limits.isEmpty() ? 0 : 1) + (block ? 1 : 0) + (exempt ? 1 : 0);
        if (effects != 1) {
            throw new IllegalArgumentException(
                    "an override sets exactly one of limits, block or exempt, e.g. {\"limits\": [\"3/1m\"]}, "
                            + "{\"block\": true} or {\"exempt\": true}");
        }
        Set<Long> windows = new HashSet<>();
        for (Limit l : limits) {
            if (!windows.add(l.windowMicros())) {
                throw new IllegalArgumentException("two limits with the window " + l.windowText() + ": merge them into one");
            }
        }
        if (reason != null && (reason.length() > MAX_REASON || !printable(reason))) {
            throw new IllegalArgumentException(
                    "a reason holds at most " + MAX_REASON + " characters, and no control characters, line separators or "
                            + "format characters (such as bidirectional overrides)");
        }
        if (setBy == null || setAt == null) {
            throw new IllegalArgumentException("an override says who set it and when");
        }
    }

    /** Whether it applies at {@code now}. */
    public boolean activeAt(Instant now) {
        return expiresAt == null || now.isBefore(expiresAt);
    }

    /** What it does, for logs and the admin page: {@code limits [3/1m]}, {@code block}, {@code exempt}. */
    public String effect() {
        return block ? "block" : exempt ? "exempt" : "limits " + limits;
    }

    /** {@link #effect()} with its expiry: {@code block until 2026-11-23T20:00:00Z}. */
    public String describe() {
        return effect() + (expiresAt == null ? "" : " until " + expiresAt);
    }

    /**
     * Whether {@code s} holds nothing that could forge or hide part of a log line: no control character, no
     * line or paragraph separator, no format character (bidirectional overrides, zero-width characters).
     */
    private static boolean printable(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            int type = Character.getType(c);
            if (Character.isISOControl(c) || type == Character.FORMAT || type == Character.LINE_SEPARATOR
                    || type == Character.PARAGRAPH_SEPARATOR) {
                return false;
            }
        }
        return true;
    }
}
