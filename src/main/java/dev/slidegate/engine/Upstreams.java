package dev.slidegate.engine;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

import jakarta.inject.Inject;
import jakarta.inject.Singleton;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Limit;
import dev.slidegate.api.Policy;
import dev.slidegate.config.SlidegateConfig;
import dev.slidegate.config.StoreStack;
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

    /** The store's upstream capability: holds and learned limits. */
    private final dev.slidegate.core.UpstreamHolds store;
    private final StoreInspection inspection;
    private final UpstreamHeaders reader;
    private final UpstreamStats stats;
    private final long pauseMicros;
    private final long ceilingMicros;
    private final Pacing pacing;
    private final LearnedLimits learned;
    private final UpstreamLog log;
    /** The instance's clock: wall time for the upstream's dates and the holds said, monotonic for refreshes. */
    private final dev.slidegate.core.Clock clock;

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
        this.store = store;
        this.inspection = inspection;
        this.stats = stats;
        this.reader = new UpstreamHeaders(forms, ceilingMicros);
        this.pauseMicros = pauseMicros;
        this.ceilingMicros = ceilingMicros;
        // a paced policy's windows carry the margin: the store's late occupancy leaves them alone
        java.util.function.Consumer<String> margined = name -> {
        };
        if (store instanceof dev.slidegate.core.LateOccupancy late) {
            margined = late::margined;
        }
        this.pacing = new Pacing(marginMicros, spread, margined);
        this.log = new UpstreamLog(maxKeys);
        this.learned = new LearnedLimits(store, pacing, stats, clock, ceilingMicros, maxKeys, refreshNanos, log::problem);
    }

    /** The policy an outgoing call of {@code key} is decided under: the configured one, or the learned one, with the margin. */
    Policy paced(Policy configured, String key) {
        Policy learnedPace = learned.paced(configured, key);
        return learnedPace != null ? learnedPace : pacing.paced(configured);
    }

    /**
     * Before an outgoing call of {@code key}: {@code null} when this instance read what the fleet learned of the key's
     * upstream within {@code slidegate.upstream.learned-refresh}, else a stage that completes once it has
     * ({@link LearnedLimits#refresh}).
     */
    CompletionStage<Void> refresh(Policy configured, String key) {
        return learned.refresh(configured, key);
    }

    /**
     * For a call of {@code key} asked at {@code sinceNanos}, placed ahead: {@code null} when this instance knows limits the
     * key's upstream published, or read what the fleet learned after then; else a stage that completes once it has.
     */
    CompletionStage<Void> readUnlearned(Policy configured, String key, long sinceNanos) {
        return learned.paced(configured, key) != null ? null : learned.readSince(configured, key, sinceNanos);
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
        return learn(configured, key, status, headers, unit -> false);
    }

    /**
     * As {@link #learn(Policy, String, int, Function)}, for one policy of a call that other policies pace too:
     * {@code countedBeside} says whether another policy of the call counts a unit ({@code requests}, {@code tokens}). A
     * quota of such a unit that is spent is that policy's to act on (its own count may explain it, or it holds the call),
     * not this one's: a provider's quota of requests spent beside room in its tokens held the call's policy of tokens for
     * the quota's whole reset, every window (UpstreamFleetIT: a second out of two unused).
     */
    public CompletionStage<Void> learn(Policy configured, String key, int status, Function<String, List<String>> headers,
            java.util.function.Predicate<String> countedBeside) {
        return learn(configured, key, status, headers, countedBeside, () -> 1);
    }

    /**
     * As {@link #learn(Policy, String, int, Function, java.util.function.Predicate)}, for a call whose cost under
     * {@code configured} {@code cost} works out (asked only when an upstream's spent quota has to be explained: an
     * estimate may cost a little work).
     */
    public CompletionStage<Void> learn(Policy configured, String key, int status, Function<String, List<String>> headers,
            java.util.function.Predicate<String> countedBeside, java.util.function.IntSupplier cost) {
        long nowMillis = clock.nowMicros() / 1000;
        String policy = configured.name();
        UpstreamHeaders.Reading r;
        try {
            r = reader.read(headers, nowMillis * 1000);
        } catch (RuntimeException | StackOverflowError e) { // never expected: a call never fails for what its upstream says
            log.problem(policy, "header fields that could not be read (" + e.getClass().getSimpleName() + ")");
            r = new UpstreamHeaders.Reading(List.of(), -1, List.of());
        }
        r.problems().forEach(p -> log.problem(policy, p));
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
            if (!counts(q, configured) && countedBeside.test(q.unit() == null ? Policy.REQUESTS : q.unit())) {
                continue; // another policy of the call counts it
            }
            if (q.exhausted() && q.resetMicros() > hold) {
                hold = q.resetMicros();
                because = "published no " + q.unit() + " left of quota '" + q.name() + "' until its reset";
            }
            if (q.exhausted() && q.resetMicros() > 0 && !counts(q, configured)) {
                ownCountMayExplain = false; // tokens for a policy of calls, calls for one of tokens: nothing it counts
            }
            if (counts(q, configured) && limit < 0) {
                limit = q.limit();
                remaining = q.remaining();
            }
        }
        if (status == 429 && hold <= 0) {
            hold = pauseMicros;
            because = "answered 429 without Retry-After or reset (slidegate.upstream.pause-without-retry-after)";
        }
        stats.seen(policy, limit, remaining, nowMillis);
        CompletionStage<Void> kept = learned.learn(configured, key, r, nowMillis);
        if (hold <= 0) {
            return kept;
        }
        long forMicros = Math.min(Math.max(hold, 1), ceilingMicros);
        String why = because;
        Policy paced = paced(configured, key);
        if (refused || !ownCountMayExplain) {
            return hold(policy, paced, key, forMicros, why, nowMillis).thenCombine(kept, (held, k) -> null);
        }
        // a call granted with nothing left after it: when the policy's own count could not admit that call again either
        // (less left than it cost), it waits for its own permits, exactly; the upstream's reset (whole seconds, often
        // rounded up) would only waste the rest of the window. An estimate of tokens is made on the request the caller
        // sent, the upstream counts what it was relayed: a few tokens a call apart, so "exactly 0 left" held the fleet a
        // whole second when the next tokens freed 50 ms later (UpstreamFleetIT). When the policy still has room for
        // another such call, the upstream counts calls it does not see: hold.
        CompletionStage<Decision> own;
        try {
            own = inspection.peek(paced, key);
        } catch (RuntimeException e) {
            own = CompletableFuture.failedFuture(e);
        }
        Limit spacing = pacing.spreading(paced);
        return own.handle((d, error) -> error == null
                && explained(d, spacing, cost))
                .thenCompose(explained -> explained ? CompletableFuture.<Void> completedFuture(null)
                        : hold(policy, paced, key, forMicros, why, nowMillis))
                .thenCombine(kept, (held, k) -> null);
    }

    /** Whether a window of the policy's own count (not its spacing) has less left than the call just made cost. */
    private static boolean explained(Decision own, Limit spacing, java.util.function.IntSupplier cost) {
        long made = -1;
        for (dev.slidegate.api.LimitState l : own.states()) {
            if (l.limit().equals(spacing)) {
                continue;
            }
            if (l.remaining() == 0) {
                return true;
            }
            if (made < 0) {
                made = Math.max(1, cost.getAsInt());
            }
            if (l.remaining() < made) {
                return true;
            }
        }
        return false;
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
                log.notHeld(policy, key, forMicros, why, error);
                return null;
            }
            long until = clock.nowMicros() / 1000 + heldFor / 1000;
            stats.held(policy, until, why);
            log.held(policy, key, until, heldFor, why, nowMillis);
            return null;
        });
    }

    /**
     * Whether a quota counts what {@code policy}'s permits count: calls (requests) for a policy of calls; for a policy of
     * another unit ({@code tokens}), a quota of that unit.
     */
    static boolean counts(UpstreamHeaders.Quota q, Policy policy) {
        String quota = q.unit() == null ? Policy.REQUESTS : q.unit();
        String own = policy.unit() == null ? Policy.REQUESTS : policy.unit();
        return quota.equals(own);
    }

    static String id(String policy, String key) {
        return policy + '\u0000' + key;
    }
}
