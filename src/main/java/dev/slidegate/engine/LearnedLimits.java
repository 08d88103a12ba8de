package dev.slidegate.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;

import org.jboss.logging.Logger;

import dev.slidegate.api.Limit;
import dev.slidegate.api.Policy;
import dev.slidegate.core.UpstreamHeaders;
import dev.slidegate.core.UpstreamHolds;
import dev.slidegate.metrics.UpstreamStats;

/**
 * The limits upstreams published, per outgoing policy and key, shared by the fleet (issue 39): a published limit lower than
 * the configured one of its window replaces it until the upstream publishes one no lower; one of a window the policy lacks
 * is added. The instance that reads it keeps it in the store ({@link UpstreamHolds#learn}, for the ceiling, renewed while
 * responses confirm it); every instance reads the store before an outgoing call of a key it has not read within
 * {@code slidegate.upstream.learned-refresh} ({@link #refresh}). At most {@code slidegate.upstream.max-keys} keys.
 */
final class LearnedLimits {

    private static final Logger LOG = UpstreamLog.LOG;
    private static final CompletionStage<Void> DONE = CompletableFuture.completedFuture(null);

    /**
     * What this instance knows one key of one policy learned: the limits it is paced at instead of the configured ones
     * (empty: none), under that base; when it was last read from the store, whether a read is under way, and when this
     * instance last kept it there.
     */
    private record Learned(Policy base, List<Limit> limits, Policy paced, long readNanos, CompletableFuture<Void> reading,
            long keptNanos) {

        Learned read(long nanos, CompletableFuture<Void> read) {
            return new Learned(base, limits, paced, nanos, read, keptNanos);
        }
    }

    private final UpstreamHolds store;
    private final Pacing pacing;
    private final UpstreamStats stats;
    private final dev.slidegate.core.Clock clock;
    private final long ceilingMicros;
    private final int maxKeys;
    private final long refreshNanos;
    /** Says what an upstream sent that could not be applied, once per policy and kind. */
    private final BiConsumer<String, String> problem;
    private final Map<String, Learned> learned = new ConcurrentHashMap<>();
    private volatile boolean fullLogged;

    LearnedLimits(UpstreamHolds store, Pacing pacing, UpstreamStats stats, dev.slidegate.core.Clock clock,
            long ceilingMicros, int maxKeys, long refreshNanos, BiConsumer<String, String> problem) {
        this.store = store;
        this.pacing = pacing;
        this.stats = stats;
        this.clock = clock;
        this.ceilingMicros = ceilingMicros;
        this.maxKeys = maxKeys;
        this.refreshNanos = refreshNanos;
        this.problem = problem;
    }

    /** The policy {@code key} is paced at because of what its upstream published, or {@code null}: the configured one. */
    Policy paced(Policy configured, String key) {
        Learned l = learned.isEmpty() ? null : learned.get(Upstreams.id(configured.name(), key));
        return l != null && same(l.base(), configured) ? l.paced() : null;
    }

    /**
     * Before an outgoing call of {@code key}: {@code null} when this instance read what the fleet learned of the key's
     * upstream within {@code slidegate.upstream.learned-refresh} (or wrote it), else a stage that completes once it has
     * (never failing: a store that cannot answer leaves the key paced as this instance knows it). Calls that arrive while
     * a read is under way wait for that one read.
     */
    CompletionStage<Void> refresh(Policy configured, String key) {
        long now = clock.nanoTime();
        return read(configured, key, now - refreshNanos, now);
    }

    /**
     * As {@link #refresh}, for a call asked at {@code sinceNanos}: {@code null} when this instance read the key after
     * then, else a stage that completes once it has (a read under way is shared).
     */
    CompletionStage<Void> readSince(Policy configured, String key, long sinceNanos) {
        return read(configured, key, sinceNanos, clock.nanoTime());
    }

    /** Reads what the fleet learned of {@code key} unless this instance read it after {@code sinceNanos}. */
    private CompletionStage<Void> read(Policy configured, String key, long sinceNanos, long now) {
        String id = Upstreams.id(configured.name(), key);
        Learned l = learned.get(id);
        if (l != null && same(l.base(), configured)) {
            if (l.reading() != null && !l.reading().isDone()) {
                return l.reading();
            }
            if (l.readNanos() - sinceNanos > 0) {
                return null;
            }
        }
        if (l == null && learned.size() >= maxKeys && !roomForOneMore(now)) {
            return null; // as many keys as kept: this one paces at its configured limits (said once)
        }
        CompletableFuture<Void> reading = new CompletableFuture<>();
        Learned marked = l != null && same(l.base(), configured) ? l.read(now, reading)
                : new Learned(configured, List.of(), null, now, reading, 0);
        if (l == null ? learned.putIfAbsent(id, marked) != null : !learned.replace(id, l, marked)) {
            Learned other = learned.get(id); // another call started the read
            return other == null || other.reading() == null || other.reading().isDone() ? null : other.reading();
        }
        CompletionStage<List<Limit>> read;
        try {
            read = store.learned(configured, key);
        } catch (RuntimeException e) {
            read = CompletableFuture.failedFuture(e);
        }
        read.whenComplete((limits, error) -> {
            try {
                Learned now2 = learned.get(id);
                if (now2 != null && now2.reading() == reading) {
                    Learned done = now2.read(now2.readNanos(), null);
                    if (error == null) {
                        done = adopt(configured, key, now2, limits);
                    }
                    learned.replace(id, now2, done);
                }
            } catch (RuntimeException e) {
                problem.accept(configured.name(),
                        "limits in the store this instance could not pace at (" + e.getMessage() + ")");
            } finally {
                reading.complete(null);
            }
        });
        return reading.isDone() ? null : reading;
    }

    /** Forgets keys that learned nothing and were not read within a refresh; whether there is room for one more now. */
    private boolean roomForOneMore(long nowNanos) {
        learned.values().removeIf(l -> l.limits().isEmpty() && l.reading() == null && nowNanos - l.readNanos() >= refreshNanos);
        if (learned.size() < maxKeys) {
            return true;
        }
        if (!fullLogged) {
            fullLogged = true;
            LOG.warnf("Outgoing policies keep what upstreams published for %d keys (slidegate.upstream.max-keys): further "
                    + "keys are paced at their policy's configured limits, holds still apply", maxKeys);
        }
        return false;
    }

    /** What {@code before} becomes with the limits read from the store (the fleet's), said once when that changes pacing. */
    private Learned adopt(Policy configured, String key, Learned before, List<Limit> limits) {
        List<Limit> usable = Pacing.usable(configured, limits);
        if (usable.equals(before.limits())) {
            return before.read(before.readNanos(), null);
        }
        said(configured, key, usable, "as another instance learned from its upstream", clock.nowMicros() / 1000);
        return learnedAt(configured, usable, before.readNanos(), before.keptNanos());
    }

    /** What a key paced at {@code limits} (none: the configured ones) knows, read at {@code readNanos}, no read under way. */
    private Learned learnedAt(Policy configured, List<Limit> limits, long readNanos, long keptNanos) {
        Policy paced = limits.isEmpty() ? null : pacing.paced(configured, limits);
        return new Learned(configured, limits, paced, readNanos, null, keptNanos);
    }

    /** Says once (the admin's stats, one log line) that {@code key} is now paced at {@code limits} (none: the configured). */
    private void said(Policy configured, String key, List<Limit> limits, String why, long nowMillis) {
        stats.learned(configured.name(), limits.isEmpty() ? null : limits.toString(), nowMillis);
        if (limits.isEmpty()) {
            LOG.infof("Policy '%s' paces %s at its configured limits %s again: %s", configured.name(), UpstreamLog.shown(key),
                    configured.limits(), why);
        } else {
            LOG.infof("Policy '%s' paces %s at %s instead of the configured %s: %s", configured.name(), UpstreamLog.shown(key),
                    limits,
                    configured.limits(), why);
        }
    }

    /**
     * Whether a policy learned under is the one a call is paced by: the same policy, or an equal one (each method of a
     * REST client that names a policy holds a policy of its own: a client whose calls went through two methods, whole
     * and streamed, forgot what it had learned at each change of method, and its calls went out at the configured limits
     * in between: UpstreamFleetIT saw them pass the provider's quota).
     */
    private static boolean same(Policy learnedUnder, Policy configured) {
        return learnedUnder == configured || learnedUnder.equals(configured);
    }

    /**
     * The limits a key is paced at after {@code r}: a published limit lower than the configured one of its window (or the
     * only one, when the upstream names no window) replaces it; one of a window the policy lacks is added; a limit no
     * lower than the configured one restores it. Logged when it changes.
     *
     * @return completes when the store keeps what changed (never fails)
     */
    CompletionStage<Void> learn(Policy configured, String key, UpstreamHeaders.Reading r, long nowMillis) {
        List<UpstreamHeaders.Quota> counted = r.quotas().stream().filter(q -> Upstreams.counts(q, configured) && q.limit() >= 1)
                .toList();
        if (counted.isEmpty()) {
            return DONE; // nothing said about limits: what was learned stays
        }
        List<Limit> base = configured.limits();
        List<Limit> paced = new ArrayList<>(base);
        for (UpstreamHeaders.Quota q : counted) {
            long n = Math.min(q.limit(), Integer.MAX_VALUE);
            int at = -1;
            if (q.windowMicros() > 0) {
                for (int i = 0; i < base.size(); i++) {
                    if (base.get(i).windowMicros() == q.windowMicros()) {
                        at = i;
                    }
                }
                if (at < 0) {
                    if (paced.stream().anyMatch(l -> l.windowMicros() == q.windowMicros())) {
                        continue; // a second quota of a window added already: the first one stands
                    }
                    try {
                        paced.add(new Limit((int) n, q.windowMicros()));
                    } catch (IllegalArgumentException e) {
                        problem.accept(configured.name(), "quota '" + q.name() + "' has a window Slidegate cannot count ("
                                + e.getMessage() + "): not applied");
                    }
                    continue;
                }
            } else if (base.size() == 1) {
                at = 0;
            } else {
                problem.accept(configured.name(),
                        "quota '" + q.name() + "' publishes a limit of " + n + " without a window, and the "
                                + "policy has " + base.size()
                                + " limits: not applied (the upstream's RateLimit-Policy w= would say which)");
                continue;
            }
            if (n < base.get(at).permits()) {
                paced.set(at, new Limit((int) n, base.get(at).windowMicros(), base.get(at).periods()));
            }
        }
        String id = Upstreams.id(configured.name(), key);
        Learned before = learned.get(id);
        boolean known = before != null && same(before.base(), configured);
        List<Limit> was = known && !before.limits().isEmpty() ? before.limits() : base;
        List<Limit> kept = paced.equals(base) ? List.of() : List.copyOf(paced);
        long now = clock.nanoTime();
        if (paced.equals(was)) {
            if (!kept.isEmpty() && (before.keptNanos() == 0 || now - before.keptNanos() > ceilingMicros * 500)) {
                learned.replace(id, before, new Learned(configured, kept, before.paced(), now, before.reading(), now));
                return keep(configured, key, kept); // confirmed: kept in the store for another ceiling
            }
            return DONE;
        }
        if (before == null && learned.size() >= maxKeys && !roomForOneMore(now)) {
            return DONE;
        }
        Learned next = learnedAt(configured, kept, now, now);
        if (before == null ? learned.putIfAbsent(id, next) != null : !learned.replace(id, before, next)) {
            return DONE; // another response (or a read of the store) said so first
        }
        said(configured, key, kept, kept.isEmpty() ? "its upstream publishes no lower ones"
                : "its upstream publishes them, on every instance sharing the store", nowMillis);
        return keep(configured, key, kept);
    }

    /** Keeps {@code limits} (none: forgets them) in the store for every instance; a store that cannot is logged. */
    private CompletionStage<Void> keep(Policy configured, String key, List<Limit> limits) {
        CompletionStage<Void> kept;
        try {
            kept = store.learn(configured, key, limits, ceilingMicros);
        } catch (RuntimeException e) {
            kept = CompletableFuture.failedFuture(e);
        }
        return kept.handle((done, error) -> {
            if (error != null) {
                problem.accept(configured.name(), "limits the store could not keep for the fleet ("
                        + (error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                                ? error.getCause().getMessage()
                                : error.getMessage())
                        + "): this instance paces at them alone");
            }
            return null;
        });
    }
}
