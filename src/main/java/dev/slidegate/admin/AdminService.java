package dev.slidegate.admin;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import jakarta.inject.Singleton;

import dev.slidegate.admin.AdminViews.KeyList;
import dev.slidegate.admin.AdminViews.KeyView;
import dev.slidegate.admin.AdminViews.LimitView;
import dev.slidegate.admin.AdminViews.PolicyLive;
import dev.slidegate.admin.AdminViews.PolicySummary;
import dev.slidegate.admin.AdminViews.Snapshot;
import dev.slidegate.admin.AdminViews.Summary;
import dev.slidegate.api.Decision;
import dev.slidegate.api.Limit;
import dev.slidegate.api.LimitState;
import dev.slidegate.api.Policy;
import dev.slidegate.config.PolicyCatalog;
import dev.slidegate.config.PolicyRegistry;
import dev.slidegate.config.SlidegateConfig;
import dev.slidegate.config.StoreStack;
import dev.slidegate.core.StoreInspection;
import dev.slidegate.metrics.DecisionStats;
import io.smallrye.mutiny.Uni;

/**
 * What {@code /admin} shows, read from the store with the same clock and rules as decisions, never
 * consuming a permit. Policies are every policy the service knows, each plan as its own
 * ({@code reports.pro}).
 */
@Singleton
@io.quarkus.arc.properties.IfBuildProperty(name = AdminBuild.ENABLED, stringValue = "true")
public class AdminService {

    /**
     * Where the admin reads and resets: at most a few calls in flight, on connections of their own with
     * Redis; a reset also reaches what the decisions' stack remembers of the key.
     */
    private final StoreInspection store;
    /** The keys of each policy by usage, shared by every page and viewer. */
    private final KeyRankings rankings;
    private final PolicyCatalog catalog;
    /** Every policy by name, plans included: the catalog is fixed at start-up. */
    private final Map<String, Policy> policies;
    private final DecisionStats stats;
    private final dev.slidegate.metrics.WaitStats waitStats;
    private final dev.slidegate.metrics.UpstreamStats upstreamStats;
    private final boolean enabled;

    private final StoreStack stack;

    private final dev.slidegate.core.Overrides overrides;

    /** How each policy moved over the last minutes, sampled by {@link #sample()}. */
    private final Trends trends = new Trends();

    /** The instance's time source: the ages of the shared counts, rankings and snapshots, and the instants they report. */
    private final dev.slidegate.core.Clock clock;

    AdminService(StoreStack stack, PolicyCatalog catalog, DecisionStats stats, SlidegateConfig config,
            dev.slidegate.core.Overrides overrides, dev.slidegate.core.Clock clock, dev.slidegate.metrics.WaitStats waitStats,
            dev.slidegate.metrics.UpstreamStats upstreamStats) {
        this.waitStats = waitStats;
        this.upstreamStats = upstreamStats;
        this.clock = clock;
        this.overrides = overrides;
        this.stack = stack;
        this.store = stack.inspection();
        this.rankings = new KeyRankings(store, this::key, this::nowMillis);
        this.catalog = catalog;
        this.policies = withPlans(catalog);
        this.stats = stats;
        this.enabled = config.enabled();
    }

    /** Milliseconds since the epoch, by the instance's clock. */
    private long nowMillis() {
        return clock.nowMicros() / 1000;
    }

    /** Every policy by name, plans included. */
    Map<String, Policy> policies() {
        return policies;
    }

    private static Map<String, Policy> withPlans(PolicyCatalog catalog) {
        Map<String, Policy> all = new TreeMap<>();
        catalog.policies().values().forEach(r -> {
            all.put(r.policy().name(), r.policy());
            r.plans().values().forEach(p -> all.put(p.name(), p));
        });
        return java.util.Collections.unmodifiableMap(all);
    }

    /** The policy of this name, or {@code null}. */
    Policy policy(String name) {
        return policies().get(name);
    }

    /** Active-key counts: a whole-keyspace SCAN on Redis, so shared by all summaries for up to a second. */
    private record Counted(List<String> policies, Map<String, Long> counts, long at) {
    }

    private static final long COUNTS_MAX_AGE_MS = 1000;
    private volatile Counted counted;
    private final java.util.concurrent.atomic.AtomicBoolean counting = new java.util.concurrent.atomic.AtomicBoolean();

    Uni<Summary> summary() {
        List<Policy> all = List.copyOf(policies().values());
        return counts(all).map(c -> new Summary(stack.decisions().name(), enabled, c.at(), refusedLocally(),
                stack.takenAhead(), stack.usedAhead(),
                all.stream()
                        .map(p -> new PolicySummary(p.name(), texts(p), p.counting(), p.key(),
                                p.countRejected(),
                                p.dryRun(), c.counts().getOrDefault(p.name(), 0L), stats.admitted(p.name()),
                                stats.refused(p.name())))
                        .toList()));
    }

    /**
     * The counts of at most a second ago; an older result is served while a new count runs in the
     * background (stale while revalidating), so a summary never waits for a scan once one has run.
     */
    private Uni<Counted> counts(List<Policy> all) {
        List<String> names = all.stream().map(Policy::name).toList();
        Counted c = counted;
        if (c == null || !c.policies().equals(names)) {
            return count(all, names);
        }
        if (nowMillis() - c.at() > COUNTS_MAX_AGE_MS && counting.compareAndSet(false, true)) {
            count(all, names).subscribe().with(fresh -> counting.set(false), failure -> counting.set(false));
        }
        return Uni.createFrom().item(c);
    }

    private Uni<Counted> count(List<Policy> all, List<String> names) {
        long at = nowMillis();
        return Uni.createFrom().completionStage(() -> store.counts(all)).map(m -> {
            Counted fresh = new Counted(names, m, at);
            counted = fresh;
            return fresh;
        });
    }

    /**
     * One key as the next decision would see it: under the limits of an override of the key, its plan or
     * its policy when one is in force (a view under other limits would show the wrong remaining, and on
     * the memory store carry the window over to limits no call uses).
     */
    Uni<KeyView> key(Policy p, String key) {
        dev.slidegate.core.Overrides.Active o = overrides.isEmpty() ? null : overrides.find(baseOf(p), p, key);
        Policy inForce = o == null ? p : o.applyTo(p);
        Uni<Decision> peek = Uni.createFrom().completionStage(() -> store.peek(inForce, key));
        if (!inForce.inFlight()) {
            if (!blocks(p)) {
                return peek.map(d -> view(key, d, waitStats.waiting(p.name(), key), -1, 0));
            }
            return peek.chain(d -> Uni.createFrom().completionStage(() -> stack.decisions().heldFor(inForce, key))
                    .map(held -> view(key, d, waitStats.waiting(p.name(), key), -1, (held + 999) / 1000)));
        }
        return peek.chain(d -> Uni.createFrom().completionStage(() -> store.oldestLeaseAge(inForce, key))
                .map(age -> view(key, d, waitStats.waiting(p.name(), key), age < 0 ? -1 : age / 1000, 0)));
    }

    /** Takes one sample of every policy's counters for its trend (the admin's timer calls it every bucket). */
    void sample() {
        trends.sample(nowMillis(), policies().keySet(), stats::admitted, stats::refused, waitStats::waiting);
    }

    /** Whether the policy {@code p} belongs to blocks a key after a breach ({@code block-for}): its keys say how long. */
    private boolean blocks(Policy p) {
        PolicyRegistry.Resolved r = catalog.policies().get(baseOf(p));
        return r != null && r.blockForMicros() > 0;
    }

    /** The name of the policy {@code p} belongs to: its own, or for a plan's policy ({@code login.gold}) its policy's. */
    private String baseOf(Policy p) {
        return catalog.policies().values().stream().filter(r -> r.plans().containsValue(p)).map(PolicyRegistry.Resolved::name)
                .findFirst().orElse(p.name());
    }

    /** Resets the key's windows, which lifts its block, and forgets the refusals counted towards one ({@code block-after}). */
    Uni<Void> reset(Policy p, String key) {
        rankings.forget(p); // the next listing by usage shows the reset
        PolicyRegistry.Resolved r = catalog.policies().get(baseOf(p));
        Policy refusals = r == null ? null : r.blockAfter();
        return Uni.createFrom().completionStage(() -> refusals == null ? store.reset(p, key)
                : store.reset(refusals, key).thenCompose(forgotten -> store.reset(p, key)))
                .invoke(() -> rankings.forget(p));
    }

    /** A page in the store's order, or with {@code byUsage} the callers closest to their limit first (cursor: an offset). */
    Uni<KeyList> keys(Policy p, String cursor, int limit, boolean byUsage) {
        if (!byUsage) {
            return Uni.createFrom().completionStage(() -> store.keys(p, cursor, limit))
                    .chain(page -> views(p, page.keys()).map(views -> new KeyList(p.name(), views, page.next(), false)));
        }
        int offset = cursor.isEmpty() ? 0 : Integer.parseInt(cursor);
        return rankings.ranking(p).map(ranked -> {
            List<KeyView> sorted = ranked.sorted();
            int to = Math.min(sorted.size(), offset + limit);
            List<KeyView> page = offset >= sorted.size() ? List.of() : sorted.subList(offset, to);
            return new KeyList(p.name(), page, to < sorted.size() ? Integer.toString(to) : null, ranked.partial());
        });
    }

    /** How long one live-page snapshot serves every viewer before the next is computed. */
    private static final long SNAPSHOT_MAX_AGE_MS = 900;

    private record SharedSnapshot(int top, long startedAt, Uni<Snapshot> snapshot) {
    }

    private SharedSnapshot shared;

    /**
     * The live page's snapshot, computed once per interval for every viewer however many there are: 50
     * open pages cost what one does. A snapshot in progress is shared too; a failed one is not kept.
     */
    Uni<Snapshot> sharedSnapshot(int top) {
        long now = nowMillis();
        synchronized (this) {
            SharedSnapshot s = shared;
            if (s == null || s.top() != top || now - s.startedAt() >= SNAPSHOT_MAX_AGE_MS) {
                SharedSnapshot fresh = new SharedSnapshot(top, now, null);
                Uni<Snapshot> computed = snapshot(top).onFailure().invoke(e -> {
                    synchronized (this) {
                        if (shared != null && shared.startedAt() == now) {
                            shared = null;
                        }
                    }
                }).memoize().indefinitely();
                shared = new SharedSnapshot(fresh.top(), fresh.startedAt(), computed);
            }
            return shared.snapshot();
        }
    }

    /** What the upstream of an outgoing policy said; {@code null} for a policy of requests this service answers. */
    private AdminViews.UpstreamView upstream(String policy) {
        PolicyRegistry.Resolved r = catalog.get(policy.contains(".") && catalog.get(policy) == null
                ? policy.substring(0, policy.indexOf('.'))
                : policy);
        if (r == null || !r.outgoing()) {
            return null;
        }
        dev.slidegate.metrics.UpstreamStats.Seen s = upstreamStats.last(policy);
        return new AdminViews.UpstreamView(s.limit(), s.remaining(), s.learned(), instant(s.learnedAtMillis()), s.refusals(),
                instant(s.last429AtMillis()), s.heldUntilMillis() > nowMillis() ? instant(s.heldUntilMillis()) : null,
                s.heldUntilMillis() > nowMillis() ? s.heldBecause() : null, instant(s.seenAtMillis()));
    }

    private static String instant(long millis) {
        return millis == 0 ? null : java.time.Instant.ofEpochMilli(millis).toString();
    }

    /** For the live page: every policy's counters and its {@code top} busiest keys among the first page of keys. */
    Uni<Snapshot> snapshot(int top) {
        List<Uni<PolicyLive>> each = policies().values().stream().map(p -> keys(p, "", 100, false).map(list -> new PolicyLive(
                p.name(),
                texts(p), stats.admitted(p.name()), stats.refused(p.name()), waitStats.waiting(p.name()),
                list.keys().stream().sorted(Comparator.comparingDouble(KeyView::usage).reversed()).limit(top).toList(),
                upstream(p.name()), trends.view(p.name(), nowMillis(), stats.admitted(p.name()), stats.refused(p.name()),
                        waitStats.waiting(p.name())))))
                .toList();
        long at = nowMillis();
        int inForce = overrides.activeCount();
        long version = overrides.version();
        if (each.isEmpty()) {
            return Uni.createFrom()
                    .item(new Snapshot(at, stack.decisions().name(), refusedLocally(), stack.takenAhead(),
                            stack.usedAhead(), List.of(), inForce, version));
        }
        return Uni.join().all(each).andFailFast()
                .map(list -> new Snapshot(at, stack.decisions().name(), refusedLocally(), stack.takenAhead(),
                        stack.usedAhead(), list, inForce, version));
    }

    private Uni<List<KeyView>> views(Policy p, List<String> keys) {
        if (keys.isEmpty()) {
            return Uni.createFrom().item(List.of());
        }
        List<Uni<KeyView>> each = keys.stream().map(k -> key(p, k)).toList();
        return Uni.join().all(each).andFailFast();
    }

    private long refusedLocally() {
        return stack.refusedLocally();
    }

    private static KeyView view(String key, Decision d, int waiting, long oldestLeaseMs, long blockedMs) {
        List<LimitView> limits = new ArrayList<>();
        double usage = 0;
        boolean inFlight = d.policy().inFlight();
        for (LimitState s : d.states()) {
            long used = s.limit().permits() - s.remaining();
            usage = Math.max(usage, used / (double) s.limit().permits());
            limits.add(new LimitView(inFlight ? s.limit().permits() + " in flight" : text(d.policy(), s.limit()), used,
                    s.remaining(), (s.resetMicros() + 999) / 1000));
        }
        return new KeyView(key, usage, limits, waiting, oldestLeaseMs, blockedMs);
    }

    /** A policy's limits as the admin shows them: {@code 500/2s}, or for calls in flight {@code 2 in flight}. */
    private static List<String> texts(Policy p) {
        if (p.inFlight()) {
            return List.of(p.maxInFlight() + " in flight");
        }
        return p.limits().stream().map(l -> text(p, l)).toList();
    }

    /**
     * A limit as the admin shows it: {@code 500/2s}, with the policy's own unit {@code 20000 tokens/1m}, and a calendar
     * period with its zone: {@code 1000000 tokens/month (Europe/Berlin)} (its {@code used} is then the period to date).
     */
    private static String text(Policy p, Limit l) {
        String text = p.countsOwnUnit() ? l.permits() + " " + p.unit() + "/" + l.windowText() : l.toString();
        return l.periods() instanceof dev.slidegate.api.Calendar c && c.zone() != null ? text + " (" + c.zone().getId() + ")"
                : text;
    }
}
