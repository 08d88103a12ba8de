package dev.slidegate.admin;

import java.util.List;

import io.quarkus.runtime.annotations.RegisterForReflection;

/** The JSON shapes of {@code /admin}. */
public final class AdminViews {

    private AdminViews() {
    }

    /**
     * {@code GET /admin}; {@code countedAt}: when the active keys were counted (epoch ms; at most about a
     * second ago); {@code refusedLocally}: refusals this instance answered from its memory of an earlier
     * Redis refusal, without a Redis call, since it started; {@code takenAhead} and {@code usedAhead}: the permits of hot
     * keys this instance took ahead of Redis in batches since it started, and of them those that admitted a call (the
     * store's counts hold what was taken and not given back).
     */
    @RegisterForReflection
    public record Summary(String store, boolean enabled, long countedAt, long refusedLocally, long takenAhead, long usedAhead,
            List<PolicySummary> policies) {
    }

    /** One policy in the summary; admitted and refused count since this instance started. */
    @RegisterForReflection
    public record PolicySummary(String name, List<String> limits, String strategy, String key, boolean countRejected,
            boolean dryRun,
            long activeKeys, long admitted, long refused) {
    }

    /** One limit of one key, as the next decision would see it. */
    @RegisterForReflection
    public record LimitView(String limit, long used, long remaining, long resetMs) {
    }

    /**
     * One key: its limits, its usage (the highest used / N over its limits, 0 to 1), how many of its calls this
     * instance holds for their permits now (a policy's {@code max-wait}), and for a policy counting calls in flight
     * (whose one limit reads {@code 2 in flight}, {@code used} = calls running on every instance) how long its oldest
     * running call has held its lease, in ms (-1: none running, or a policy of windows); for a policy with
     * {@code block-for}, how long the key is still blocked, in ms (0: not blocked; lifted by a reset of the key).
     */
    @RegisterForReflection
    public record KeyView(String key, double usage, List<LimitView> limits, int waiting, long oldestLeaseMs, long blockedMs) {
    }

    /**
     * {@code GET /admin/policies/{policy}/keys}: a page, and the cursor of the next one ({@code null} after
     * the last). {@code partial}: a listing by usage ran out of its time budget, so it ranks only the keys
     * it could read in time.
     */
    @RegisterForReflection
    public record KeyList(String policy, List<KeyView> keys, String next, boolean partial) {
    }

    /**
     * One policy in the live stream: counters, the calls this instance holds for their permits now, its busiest keys, and
     * for a policy that paces calls to an upstream, what that upstream said ({@code null} for the others).
     */
    @RegisterForReflection
    public record PolicyLive(String name, List<String> limits, long admitted, long refused, int waiting,
            List<KeyView> busiest, UpstreamView upstream, TrendView trend) {
    }

    /**
     * How a policy moved on this instance over the last minutes, the oldest bucket first: calls admitted and refused in
     * each bucket of {@code bucketSeconds}, and the calls held waiting when it was sampled.
     */
    @RegisterForReflection
    public record TrendView(int bucketSeconds, long[] admitted, long[] refused, long[] waiting) {
    }

    /**
     * What the upstream of an outgoing policy said, as this instance read it: the limit and remainder it published last
     * (-1: none yet), the limits Slidegate paces a key at because it published lower ones ({@code null}: the configured
     * ones), its 429s, and until when its last answer held a key's calls. Instants are ISO-8601, {@code null} for never.
     */
    @RegisterForReflection
    public record UpstreamView(long limit, long remaining, String learned, String learnedAt, long refusals, String last429At,
            String heldUntil, String heldBecause, String seenAt) {
    }

    /**
     * One event of {@code /admin/stream}: the overrides are counted, not listed ({@code GET /admin/overrides} lists
     * them); {@code overridesVersion} moves whenever they change, so a page reloads the list only then.
     */
    @RegisterForReflection
    public record Snapshot(long at, String store, long refusedLocally, long takenAhead, long usedAhead,
            List<PolicyLive> policies, int overrides, long overridesVersion) {
    }

    /**
     * An override in force.
     *
     * @param expiresAt ISO-8601, or {@code null} for never
     * @param expiresIn whole seconds left, or {@code null}
     */
    @RegisterForReflection
    public record OverrideView(String policy, String plan, String key, List<String> limits, boolean block, boolean exempt,
            String expiresAt, Long expiresIn, String reason, String setBy, String setAt) {
    }

    /**
     * A page of the overrides in force, and where they are kept ({@code redis}, {@code memory}, or a service's own
     * source): {@code total} in force, {@code next} the cursor of the next page ({@code null} after the last).
     */
    @RegisterForReflection
    public record OverrideList(String source, List<OverrideView> overrides, int total, String next) {
    }
}
