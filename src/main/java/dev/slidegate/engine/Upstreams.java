package dev.slidegate.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import jakarta.inject.Inject;
import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Limit;
import dev.slidegate.api.Policy;
import dev.slidegate.config.SlidegateConfig;
import dev.slidegate.config.StoreStack;
import dev.slidegate.core.ByIdentity;
import dev.slidegate.core.DecisionStore;
import dev.slidegate.core.StoreInspection;
import dev.slidegate.core.UpstreamHeaders;
import dev.slidegate.metrics.UpstreamStats;

/**
 * What outgoing policies learn from the upstreams they pace calls to, and how that changes their decisions (issue 39).
 *
 * <ul>
 * <li><b>Margin.</b> Each window of an outgoing policy is decided {@code slidegate.upstream.margin} longer than
 * configured: a call reaches the upstream a little after its permit, not every call equally late, so N permits exactly W
 * apart could arrive less than W apart.</li>
 * <li><b>Holds, shared.</b> A 429 or 503 with {@code Retry-After}, and any published quota with nothing left until its
 * reset, hold every call of the policy and key in the store ({@link DecisionStore#hold}) for that long: on Redis every
 * instance's next decision waits for it (or is refused when it may not wait that long), and a call already holding a
 * permit asks once more before it goes out ({@link #heldFor}). A 429 that says neither holds for
 * {@code slidegate.upstream.pause-without-retry-after}. Nothing is held longer than {@code slidegate.upstream.ceiling}.</li>
 * <li><b>Learned limits, shared.</b> A published limit lower than the configured one (same window, or the only limit
 * when the upstream names no window) replaces it until the upstream publishes one no lower; one of a window the policy
 * does not have is added. The instance that reads it keeps it in the store ({@link DecisionStore#learn}, for the
 * ceiling, renewed while responses confirm it); every instance reads the store before an outgoing call of a key it has
 * not read within {@code slidegate.upstream.learned-refresh}, so the whole fleet paces at it within that.</li>
 * </ul>
 * Every value the upstream sends is bounded ({@link UpstreamHeaders}); what was cut or ignored is logged once per policy
 * and kind. One log line says each change of what Slidegate does because of an upstream.
 */
@Singleton
public class Upstreams {

    private static final Logger LOG = Logger.getLogger("dev.slidegate.upstream");
    /** Distinct problems logged per policy at most (after that, none: a hostile upstream cannot flood the log). */
    private static final int MAX_PROBLEMS_LOGGED = 20;
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

    /** The store's upstream capability: holds and learned limits. */
    private final dev.slidegate.core.UpstreamHolds store;
    private final StoreInspection inspection;
    private final UpstreamHeaders reader;
    private final UpstreamStats stats;
    private final long marginMicros;
    private final long pauseMicros;
    private final long ceilingMicros;
    private final int maxKeys;
    private final long refreshNanos;
    private final boolean spread;
    private final Map<String, Learned> learned = new ConcurrentHashMap<>();
    /** The limit that spreads each paced policy's calls, by that policy: no count of the upstream's quota. */
    private final Map<Policy, Limit> spreading = new ConcurrentHashMap<>();
    /** Each policy with the margin added to its windows, by the configured policy's identity. */
    private final ByIdentity<Policy, Policy> withMargin;
    private final Map<String, Set<String>> problemsLogged = new ConcurrentHashMap<>();
    /** Until when (epoch ms) a hold was last logged, per policy and key: one line per hold, not per 429. */
    private final Map<String, Long> holdLogged = new ConcurrentHashMap<>();
    private volatile boolean fullLogged;
    /** The instance's clock: wall time for the upstream's dates and the holds said, monotonic for refreshes. */
    private final dev.slidegate.core.Clock clock;
    /** Told the name of each policy paced here, once, when its paced form is made ({@link #margin(Policy, long)}). */
    private final java.util.function.Consumer<String> margined;

    @Inject
    Upstreams(DecisionStore store, StoreStack stack, UpstreamStats stats, SlidegateConfig config,
            dev.slidegate.core.Clock clock) {
        this(store, stack.inspection(), stats, UpstreamHeaders.Form.parse(config.upstream().forms()),
                config.upstream().margin().toNanos() / 1000, config.upstream().pauseWithoutRetryAfter().toNanos() / 1000,
                config.upstream().ceiling().toNanos() / 1000, config.upstream().maxKeys(), config.upstream().spread(),
                config.upstream().learnedRefresh().toNanos(), clock);
    }

    Upstreams(DecisionStore store, StoreInspection inspection, UpstreamStats stats, Set<UpstreamHeaders.Form> forms,
            long marginMicros, long pauseMicros, long ceilingMicros, int maxKeys, boolean spread, long refreshNanos,
            dev.slidegate.core.Clock clock) {
        this.clock = clock;
        this.margined = store instanceof dev.slidegate.core.LateOccupancy late ? late::margined : name -> {
        };
        this.spread = spread;
        this.refreshNanos = refreshNanos;
        this.store = store;
        this.inspection = inspection;
        this.stats = stats;
        this.reader = new UpstreamHeaders(forms, ceilingMicros);
        this.marginMicros = marginMicros;
        this.pauseMicros = pauseMicros;
        this.ceilingMicros = ceilingMicros;
        this.maxKeys = maxKeys;
        Map<Policy, Policy> made = new ConcurrentHashMap<>(); // one paced policy per configured one, whatever the cache forgot
        this.withMargin = new ByIdentity<>(p -> made.computeIfAbsent(p, c -> margin(c, spacing(c))));
    }

    /** The policy an outgoing call of {@code key} is decided under: the configured one, or the learned one, with the margin. */
    Policy paced(Policy configured, String key) {
        Learned l = learned.isEmpty() ? null : learned.get(id(configured.name(), key));
        if (l != null && l.base() == configured && l.paced() != null) {
            return l.paced();
        }
        return withMargin.get(configured);
    }

    /**
     * Before an outgoing call of {@code key}: {@code null} when this instance read what the fleet learned of the key's
     * upstream within {@code slidegate.upstream.learned-refresh} (or wrote it), else a stage that completes once it has
     * (never failing: a store that cannot answer leaves the key paced as this instance knows it). Calls that arrive while
     * a read is under way wait for that one read.
     */
    CompletionStage<Void> refresh(Policy configured, String key) {
        String id = id(configured.name(), key);
        Learned l = learned.get(id);
        long now = clock.nanoTime();
        if (l != null && l.base() == configured) {
            if (l.reading() != null && !l.reading().isDone()) {
                return l.reading();
            }
            if (now - l.readNanos() < refreshNanos) {
                return null;
            }
        }
        if (l == null && learned.size() >= maxKeys && !roomForOneMore(now)) {
            return null; // as many keys as kept: this one paces at its configured limits (said once)
        }
        CompletableFuture<Void> reading = new CompletableFuture<>();
        Learned marked = l != null && l.base() == configured ? l.read(now, reading)
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
                problem(configured.name(), "limits in the store this instance could not pace at (" + e.getMessage() + ")");
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
        List<Limit> usable = usable(configured, limits);
        if (usable.equals(before.limits())) {
            return before.read(before.readNanos(), null);
        }
        said(configured, key, usable, "as another instance learned from its upstream", clock.nowMicros() / 1000);
        return learnedAt(configured, usable, before.readNanos(), before.keptNanos());
    }

    /** What a key paced at {@code limits} (none: the configured ones) knows, read at {@code readNanos}, no read under way. */
    private Learned learnedAt(Policy configured, List<Limit> limits, long readNanos, long keptNanos) {
        Policy paced = limits.isEmpty() ? null : margin(configured.withLimits(limits), spacing(configured));
        return new Learned(configured, limits, paced, readNanos, null, keptNanos);
    }

    /** Says once (the admin's stats, one log line) that {@code key} is now paced at {@code limits} (none: the configured). */
    private void said(Policy configured, String key, List<Limit> limits, String why, long nowMillis) {
        stats.learned(configured.name(), limits.isEmpty() ? null : limits.toString(), nowMillis);
        if (limits.isEmpty()) {
            LOG.infof("Policy '%s' paces %s at its configured limits %s again: %s", configured.name(), shown(key),
                    configured.limits(), why);
        } else {
            LOG.infof("Policy '%s' paces %s at %s instead of the configured %s: %s", configured.name(), shown(key), limits,
                    configured.limits(), why);
        }
    }

    /**
     * Limits read from the store, as this instance paces at them: none when they would raise a configured limit (the
     * store is shared with whoever can write Redis; learned limits only ever lower what is configured).
     */
    private static List<Limit> usable(Policy configured, List<Limit> limits) {
        if (limits == null || limits.isEmpty() || limits.size() < configured.limits().size()) {
            return List.of();
        }
        for (int i = 0; i < configured.limits().size(); i++) {
            Limit c = configured.limits().get(i);
            Limit l = limits.get(i);
            if (l.windowMicros() != c.windowMicros() || l.permits() > c.permits()) {
                return List.of();
            }
        }
        try {
            configured.withLimits(limits); // no two of one window
        } catch (IllegalArgumentException e) {
            return List.of();
        }
        return List.copyOf(limits);
    }

    /**
     * The policy an outgoing call is decided under: each window {@link #marginMicros} longer; and, for a policy whose calls
     * may wait ({@code max-wait} above 0) with {@code slidegate.upstream.spread}, one more limit that spreads its calls
     * evenly, one per (W + margin) / N of its fastest limit: a fleet never bursts into a quota it may share with traffic
     * it does not see, and calls held by an upstream's answer go out one by one when it ends, not all at once. The
     * spacing is never shorter than {@code floorMicros}, the configured policy's own: a learned limit can only slow a
     * client, so a fast window an upstream publishes ({@code "fast";q=1000;w=1}) cannot switch spreading off (issue 56).
     */
    private Policy margin(Policy p, long floorMicros) {
        margined.accept(p.name()); // its windows carry the margin: the store's late occupancy leaves them alone
        List<Limit> limits = new ArrayList<>(p.limits().stream().map(this::margin).toList());
        if (spread && p.maxWaitMicros() > 0) {
            long spacing = Math.max(floorMicros, spacing(limits));
            Limit even = spacing >= 1000 ? new Limit(1, spacing)
                    : new Limit((int) Math.min(Integer.MAX_VALUE, (1000 + spacing - 1) / spacing), 1000);
            if (even.permits() < limits.stream().mapToInt(Limit::permits).min().orElse(0)
                    && limits.stream().noneMatch(l -> l.windowMicros() == even.windowMicros())) {
                limits.add(even);
                Policy spreadOut = p.withLimits(List.copyOf(limits));
                spreading.put(spreadOut, even);
                return spreadOut;
            }
        }
        return limits.equals(p.limits()) ? p : p.withLimits(List.copyOf(limits));
    }

    /** The spacing of a policy's configured limits with the margin, (W + margin) / N of its fastest one (µs). */
    private long spacing(Policy configured) {
        return spacing(configured.limits().stream().map(this::margin).toList());
    }

    private static long spacing(List<Limit> limits) {
        long spacing = Long.MAX_VALUE;
        for (Limit l : limits) {
            spacing = Math.min(spacing, Math.max(1, l.windowMicros() / l.permits()));
        }
        return spacing;
    }

    private Limit margin(Limit l) {
        try {
            return l.calendar() ? l : new Limit(l.permits(), l.windowMicros() + marginMicros);
        } catch (IllegalArgumentException e) { // a window of 366 days has no room for more
            return l;
        }
    }

    /** How long {@code key} is still held under {@code configured} (µs), for a call that waited before it goes out. */
    CompletionStage<Long> heldFor(Policy configured, String key) {
        return store.heldFor(paced(configured, key), key);
    }

    /**
     * Reads one response of the upstream {@code configured} paces calls to, for {@code key}, and acts on it.
     *
     * @param status the response's HTTP status
     * @param headers the values of a header field by name, any case; {@code null} or empty when absent
     * @return completes when a hold it made is in the store (never fails: a hold the store could not make is logged)
     */
    public CompletionStage<Void> learn(Policy configured, String key, int status, Function<String, List<String>> headers) {
        long nowMillis = clock.nowMicros() / 1000;
        String policy = configured.name();
        UpstreamHeaders.Reading r;
        try {
            r = reader.read(headers, nowMillis * 1000);
        } catch (RuntimeException | StackOverflowError e) { // never expected: a call never fails for what its upstream says
            problem(policy, "header fields that could not be read (" + e.getClass().getSimpleName() + ")");
            r = new UpstreamHeaders.Reading(List.of(), -1, List.of());
        }
        r.problems().forEach(p -> problem(policy, p));
        long hold = 0;
        String because = null;
        if (status == 429) {
            stats.refused(policy, nowMillis);
        }
        if ((status == 429 || status == 503) && r.retryAfterMicros() >= 0) {
            hold = r.retryAfterMicros();
            because = "answered " + status + " with Retry-After";
        }
        long limit = -1;
        long remaining = -1;
        boolean refused = status == 429 || hold > 0;
        boolean ownCountMayExplain = true; // only a spent quota of calls, which the policy counts too
        for (UpstreamHeaders.Quota q : r.quotas()) {
            if (q.exhausted() && q.resetMicros() > hold) {
                hold = q.resetMicros();
                because = "published no " + q.unit() + " left of quota '" + q.name() + "' until its reset";
            }
            if (q.exhausted() && q.resetMicros() > 0 && !counts(q)) {
                ownCountMayExplain = false; // tokens, bytes: nothing the policy counts
            }
            if (counts(q) && limit < 0) {
                limit = q.limit();
                remaining = q.remaining();
            }
        }
        if (status == 429 && hold <= 0) {
            hold = pauseMicros;
            because = "answered 429 without Retry-After or reset (slidegate.upstream.pause-without-retry-after)";
        }
        stats.seen(policy, limit, remaining, nowMillis);
        CompletionStage<Void> kept = learnLimits(configured, key, r, nowMillis);
        if (hold <= 0) {
            return kept;
        }
        long forMicros = Math.min(Math.max(hold, 1), ceilingMicros);
        String why = because;
        Policy paced = paced(configured, key);
        if (refused || !ownCountMayExplain) {
            return hold(policy, paced, key, forMicros, why, nowMillis).thenCombine(kept, (held, k) -> null);
        }
        // a call granted with nothing left after it: when the policy's own count has nothing left either, it waits for
        // its own permits, exactly; the upstream's reset (whole seconds, often rounded up) would only waste the rest of
        // the window. When the policy still has room, the upstream counts calls it does not see: hold.
        CompletionStage<Decision> own;
        try {
            own = inspection.peek(paced, key);
        } catch (RuntimeException e) {
            own = CompletableFuture.failedFuture(e);
        }
        Limit spacing = spreading.get(paced);
        return own.handle((d, error) -> error == null
                && d.states().stream().anyMatch(l -> l.remaining() == 0 && !l.limit().equals(spacing)))
                .thenCompose(explained -> explained ? CompletableFuture.<Void> completedFuture(null)
                        : hold(policy, paced, key, forMicros, why, nowMillis))
                .thenCombine(kept, (held, k) -> null);
    }

    private CompletionStage<Void> hold(String policy, Policy paced, String key, long forMicros, String why, long nowMillis) {
        CompletionStage<Long> made;
        try {
            made = store.hold(paced, key, forMicros);
        } catch (RuntimeException e) {
            made = CompletableFuture.failedFuture(e);
        }
        return made.handle((heldFor, error) -> {
            if (error != null) {
                LOG.warnf("Policy '%s' could not hold the calls of %s for %d ms (its upstream %s): %s", policy, shown(key),
                        forMicros / 1000, why, error.getMessage());
                return null;
            }
            long until = clock.nowMicros() / 1000 + heldFor / 1000;
            stats.held(policy, until, why);
            Long before = holdLogged.get(id(policy, key));
            if (before == null || before < nowMillis) {
                if (before == null && holdLogged.size() >= maxKeys) {
                    holdLogged.values().removeIf(v -> v < nowMillis); // holds that ended
                    if (holdLogged.size() >= maxKeys) {
                        return null; // as many keys held at once as keys learned: the metric counts the rest
                    }
                }
                holdLogged.put(id(policy, key), until);
                LOG.infof("Policy '%s' holds every call of %s for %d ms, on every instance sharing the store: its upstream %s",
                        policy, shown(key), heldFor / 1000, why);
            } else {
                holdLogged.computeIfPresent(id(policy, key), (k, v) -> Math.max(v, until));
            }
            return null;
        });
    }

    /** Whether a quota counts calls (requests), as the policy's limits do, rather than tokens or bytes. */
    private static boolean counts(UpstreamHeaders.Quota q) {
        return q.unit() == null || q.unit().equals("requests");
    }

    /**
     * The limits a key is paced at after {@code r}: a published limit lower than the configured one of its window (or the
     * only one, when the upstream names no window) replaces it; one of a window the policy lacks is added; a limit no
     * lower than the configured one restores it. Logged when it changes.
     *
     * @return completes when the store keeps what changed (never fails)
     */
    private CompletionStage<Void> learnLimits(Policy configured, String key, UpstreamHeaders.Reading r, long nowMillis) {
        List<UpstreamHeaders.Quota> counted = r.quotas().stream().filter(q -> counts(q) && q.limit() >= 1).toList();
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
                        problem(configured.name(), "quota '" + q.name() + "' has a window Slidegate cannot count ("
                                + e.getMessage() + "): not applied");
                    }
                    continue;
                }
            } else if (base.size() == 1) {
                at = 0;
            } else {
                problem(configured.name(), "quota '" + q.name() + "' publishes a limit of " + n + " without a window, and the "
                        + "policy has " + base.size()
                        + " limits: not applied (the upstream's RateLimit-Policy w= would say which)");
                continue;
            }
            if (n < base.get(at).permits()) {
                paced.set(at, new Limit((int) n, base.get(at).windowMicros(), base.get(at).periods()));
            }
        }
        String id = id(configured.name(), key);
        Learned before = learned.get(id);
        boolean known = before != null && before.base() == configured;
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
                problem(configured.name(), "limits the store could not keep for the fleet ("
                        + (error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                                ? error.getCause().getMessage()
                                : error.getMessage())
                        + "): this instance paces at them alone");
            }
            return null;
        });
    }

    private void problem(String policy, String problem) {
        Set<String> logged = problemsLogged.computeIfAbsent(policy, p -> ConcurrentHashMap.newKeySet());
        String kind = problem.length() > 60 ? problem.substring(0, 60) : problem;
        if (logged.size() < MAX_PROBLEMS_LOGGED && logged.add(kind)) {
            LOG.warnf("Policy '%s': its upstream sent %s (said once)", policy, problem);
        }
    }

    /**
     * A key for a log line: the client's or the global one as it is; a tenant's (which may be a credential, for one
     * quota per tenant's credentials) as a fingerprint only, {@code key #1a2b3c4d}: the admin shows keys to operators.
     */
    static String shown(String key) {
        if (key.startsWith("client:") || key.equals("global")) {
            return "key '" + key + "'";
        }
        try {
            byte[] d = java.security.MessageDigest.getInstance("SHA-256")
                    .digest(key.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return "key #" + java.util.HexFormat.of().formatHex(d, 0, 4);
        } catch (java.security.NoSuchAlgorithmException e) {
            return "a key";
        }
    }

    private static String id(String policy, String key) {
        return policy + '\u0000' + key;
    }
}
