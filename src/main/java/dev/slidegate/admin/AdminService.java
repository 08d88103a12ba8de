package dev.slidegate.admin;

import dev.slidegate.admin.AdminViews.KeyList;
import dev.slidegate.admin.AdminViews.KeyView;
import dev.slidegate.admin.AdminViews.LimitView;
import dev.slidegate.admin.AdminViews.PolicyLive;
import dev.slidegate.admin.AdminViews.PolicySummary;
import dev.slidegate.admin.AdminViews.Snapshot;
import dev.slidegate.admin.AdminViews.Summary;
import dev.slidegate.config.PolicyRegistry;
import dev.slidegate.config.SlidegateConfig;
import dev.slidegate.core.Decision;
import dev.slidegate.core.Limit;
import dev.slidegate.core.LimitState;
import dev.slidegate.core.LimiterStore;
import dev.slidegate.core.Policy;
import io.smallrye.mutiny.Uni;
import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What {@code /admin} shows, read from the store with the same clock and rules as decisions, never
 * consuming a permit. Policies are every policy the service knows, each plan as its own
 * ({@code reports.pro}).
 */
@Singleton
public class AdminService {

    /** The most keys {@code sort=usage} ranks (all of them, up to this). */
    static final int RANKED = 100_000;

    private final LimiterStore store;
    private final PolicyRegistry registry;
    private final DecisionStats stats;
    private final boolean enabled;

    AdminService(LimiterStore store, PolicyRegistry registry, DecisionStats stats, SlidegateConfig config) {
        this.store = store;
        this.registry = registry;
        this.stats = stats;
        this.enabled = config.enabled();
    }

    /** Every policy by name, plans included. */
    Map<String, Policy> policies() {
        Map<String, Policy> all = new TreeMap<>();
        registry.policies().values().forEach(r -> {
            all.put(r.policy().name(), r.policy());
            r.plans().values().forEach(p -> all.put(p.name(), p));
        });
        return all;
    }

    /** The policy of this name, or {@code null}. */
    Policy policy(String name) {
        return policies().get(name);
    }

    Uni<Summary> summary() {
        List<Uni<PolicySummary>> each = policies().values().stream()
                .map(p -> Uni.createFrom().completionStage(() -> store.count(p)).map(count -> new PolicySummary(p.name(), texts(p.limits()),
                        p.strategy().configName(), p.key(), p.countRejected(), p.dryRun(), count, stats.admitted(p.name()),
                        stats.refused(p.name()))))
                .toList();
        if (each.isEmpty()) {
            return Uni.createFrom().item(new Summary(store.name(), enabled, List.of()));
        }
        return Uni.join().all(each).andFailFast().map(list -> new Summary(store.name(), enabled, list));
    }

    Uni<KeyView> key(Policy p, String key) {
        return Uni.createFrom().completionStage(() -> store.peek(p, key)).map(d -> view(key, d));
    }

    Uni<Void> reset(Policy p, String key) {
        return Uni.createFrom().completionStage(() -> store.reset(p, key));
    }

    /** A page in the store's order, or with {@code byUsage} the callers closest to their limit first (cursor: an offset). */
    Uni<KeyList> keys(Policy p, String cursor, int limit, boolean byUsage) {
        if (!byUsage) {
            return Uni.createFrom().completionStage(() -> store.keys(p, cursor, limit))
                    .chain(page -> views(p, page.keys()).map(views -> new KeyList(p.name(), views, page.next())));
        }
        int offset = cursor.isEmpty() ? 0 : Integer.parseInt(cursor);
        return allKeys(p, "", new ArrayList<>()).chain(keys -> views(p, keys)).map(views -> {
            List<KeyView> sorted = views.stream().sorted(Comparator.comparingDouble(KeyView::usage).reversed().thenComparing(KeyView::key))
                    .toList();
            int to = Math.min(sorted.size(), offset + limit);
            List<KeyView> page = offset >= sorted.size() ? List.of() : sorted.subList(offset, to);
            return new KeyList(p.name(), page, to < sorted.size() ? Integer.toString(to) : null);
        });
    }

    /** For the live page: every policy's counters and its {@code top} busiest keys among the first page of keys. */
    Uni<Snapshot> snapshot(int top) {
        List<Uni<PolicyLive>> each = policies().values().stream().map(p -> keys(p, "", 100, false).map(list -> new PolicyLive(p.name(),
                texts(p.limits()), stats.admitted(p.name()), stats.refused(p.name()),
                list.keys().stream().sorted(Comparator.comparingDouble(KeyView::usage).reversed()).limit(top).toList()))).toList();
        long at = System.currentTimeMillis();
        if (each.isEmpty()) {
            return Uni.createFrom().item(new Snapshot(at, store.name(), List.of()));
        }
        return Uni.join().all(each).andFailFast().map(list -> new Snapshot(at, store.name(), list));
    }

    private Uni<List<String>> allKeys(Policy p, String cursor, List<String> acc) {
        return Uni.createFrom().completionStage(() -> store.keys(p, cursor, 1000)).chain(page -> {
            acc.addAll(page.keys());
            return page.next() == null || acc.size() >= RANKED ? Uni.createFrom().item(acc) : allKeys(p, page.next(), acc);
        });
    }

    private Uni<List<KeyView>> views(Policy p, List<String> keys) {
        if (keys.isEmpty()) {
            return Uni.createFrom().item(List.of());
        }
        List<Uni<KeyView>> each = keys.stream().map(k -> key(p, k)).toList();
        return Uni.join().all(each).andFailFast();
    }

    private static KeyView view(String key, Decision d) {
        List<LimitView> limits = new ArrayList<>();
        double usage = 0;
        for (LimitState s : d.states()) {
            long used = s.limit().permits() - s.remaining();
            usage = Math.max(usage, used / (double) s.limit().permits());
            limits.add(new LimitView(s.limit().toString(), used, s.remaining(), (s.resetMicros() + 999) / 1000));
        }
        return new KeyView(key, usage, limits);
    }

    private static List<String> texts(List<Limit> limits) {
        return limits.stream().map(Limit::toString).toList();
    }
}
