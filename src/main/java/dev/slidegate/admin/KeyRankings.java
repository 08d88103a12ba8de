package dev.slidegate.admin;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.LongSupplier;

import dev.slidegate.admin.AdminViews.KeyView;
import dev.slidegate.api.Policy;
import dev.slidegate.core.StoreInspection;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;

/** The keys of a policy by usage ({@code sort=usage}): bounded work on the store, shared by every page and viewer. */
final class KeyRankings {

    /** The most keys {@code sort=usage} ranks (all of them, up to this). */
    static final int RANKED = 100_000;
    /**
     * How many keys a ranking reads at once: the work one listing puts on the store at any moment; fewer
     * than the admin's reads in flight in all ({@code StoreStack.ADMIN_IN_FLIGHT}), so the live pages'
     * snapshot never waits behind a ranking.
     */
    static final int RANKING_IN_FLIGHT = 12;
    /** How long a ranking serves further pages and other viewers before it is computed again. */
    private static final long RANKING_MAX_AGE_MS = 1000;
    /** How long a ranking reads keys: it then ranks those it has read, and says it is partial. */
    static final Duration RANKING_BUDGET = Duration.ofSeconds(2);

    /** Keys by usage, and whether the time budget left some unread. */
    record Ranked(List<KeyView> sorted, boolean partial) {
    }

    /** One policy's keys by usage, shared by every page and viewer for up to a second. */
    private static final class Ranking {
        final Policy policy;
        Uni<Ranked> sorted;
        /** When it was ready (ms by the instance's clock); 0 while it is being computed. */
        volatile long readyAt;

        Ranking(Policy policy) {
            this.policy = policy;
        }

        /** Whether a listing of {@code p} at {@code now} may use it: in progress, or ready for at most a second. */
        boolean serves(Policy p, long now) {
            long ready = readyAt;
            return policy.equals(p) && (ready == 0 || now - ready <= RANKING_MAX_AGE_MS);
        }
    }

    private final Map<String, Ranking> rankings = new java.util.concurrent.ConcurrentHashMap<>();

    private final StoreInspection store;
    private final BiFunction<Policy, String, Uni<KeyView>> key;
    private final LongSupplier nowMillis;

    /**
     * @param key the view of one key, as the admin shows it
     * @param nowMillis the instance's clock, in ms
     */
    KeyRankings(StoreInspection store, BiFunction<Policy, String, Uni<KeyView>> key, LongSupplier nowMillis) {
        this.store = store;
        this.key = key;
        this.nowMillis = nowMillis;
    }

    /** Drops the ranking of {@code p}: the next listing by usage reads the keys again (after a reset). */
    void forget(Policy p) {
        rankings.remove(p.name());
    }

    /**
     * The keys of {@code p} by usage: at most {@link #RANKED}, read {@link #RANKING_IN_FLIGHT} at a
     * time for at most {@link #RANKING_BUDGET} (then those read so far, marked partial), and computed once
     * for every page and viewer: a ranking in progress is shared, a finished
     * one serves for a second after it was ready, a failed one is not kept.
     */
    Uni<Ranked> ranking(Policy p) {
        long now = nowMillis.getAsLong();
        return rankings.compute(p.name(), (name, old) -> old != null && old.serves(p, now) ? old : rank(p)).sorted;
    }

    private Ranking rank(Policy p) {
        Ranking r = new Ranking(p);
        r.sorted = allKeys(p, "", new ArrayList<>())
                .chain(keys -> Multi.createFrom().iterable(keys).onItem().transformToUni(k -> key.apply(p, k))
                        .merge(RANKING_IN_FLIGHT)
                        .select().first(RANKING_BUDGET)
                        .collect().asList()
                        .map(views -> new Ranked(views.stream()
                                .sorted(Comparator.comparingDouble(KeyView::usage).reversed().thenComparing(KeyView::key))
                                .toList(), views.size() < keys.size())))
                .invoke(done -> r.readyAt = nowMillis.getAsLong())
                .onFailure().invoke(e -> rankings.remove(p.name(), r))
                .memoize().indefinitely();
        return r;
    }

    private Uni<List<String>> allKeys(Policy p, String cursor, List<String> acc) {
        return Uni.createFrom().completionStage(() -> store.keys(p, cursor, 1000)).chain(page -> {
            acc.addAll(page.keys());
            return page.next() == null || acc.size() >= RANKED ? Uni.createFrom().item(acc) : allKeys(p, page.next(), acc);
        });
    }
}
