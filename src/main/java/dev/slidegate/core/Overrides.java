package dev.slidegate.core;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

import dev.slidegate.api.Decision;
import dev.slidegate.api.LimitOverride;
import dev.slidegate.api.LimitState;
import dev.slidegate.api.Policy;

/**
 * The overrides in force, as last loaded from their {@link dev.slidegate.api.OverrideSource}, indexed
 * for the decision path: with none, a lookup is one read of an empty map.
 *
 * <p>
 * For a call of policy {@code base} decided under {@code policy} (the caller's plan's, named
 * {@code base.plan}, or {@code base} itself) for {@code key}, the most specific override in force
 * applies: the key's (under the plan's policy, else under {@code base}), else the plan's, else the
 * policy's. An expired override is skipped as if absent.
 */
public final class Overrides {

    /** One override in force, with the policies it makes, one per policy it changes (made once, then reused). */
    public static final class Active {
        private final LimitOverride override;
        private final long expiresMicros;
        private final Map<String, Policy> policies = new ConcurrentHashMap<>();

        Active(LimitOverride override) {
            this.override = override;
            this.expiresMicros = override.expiresAt() == null ? Long.MAX_VALUE
                    : Math.multiplyExact(override.expiresAt().getEpochSecond(), 1_000_000L)
                            + override.expiresAt().getNano() / 1000;
        }

        public LimitOverride override() {
            return override;
        }

        /**
         * The policy a call is decided under: {@code p} with the override's limits, under the same name (so
         * the same windows go on counting), or {@code p} itself for a block or an exemption.
         */
        public Policy applyTo(Policy p) {
            if (override.limits().isEmpty()) {
                return p;
            }
            return policies.computeIfAbsent(p.name(), n -> p.withLimits(override.limits()));
        }

        /**
         * The refusal of a blocked call, charging nothing: every limit at 0, to be retried when the block
         * ends (or, for a block without end, after the policy's longest window); enforced also under a
         * policy in dry-run.
         */
        public Decision blocked(Policy p, long nowMicros) {
            long retry = expiresMicros == Long.MAX_VALUE ? p.maxWindowMicros() : Math.max(1, expiresMicros - nowMicros);
            List<LimitState> states = p.limits().stream().map(l -> new LimitState(l, 0, retry)).toList();
            // an operator's block is enforced even where the policy only reports its refusals (dry-run)
            Policy enforced = !p.dryRun() ? p
                    : policies.computeIfAbsent(p.name() + "\u0000enforced", n -> p.withDryRun(false));
            return new Decision(enforced, false, 0, retry, nowMicros, states);
        }

        /**
         * {@code d} admitted at once whatever it said: an exempt caller is decided and counted, never refused, and never
         * held for a permit (one reserved for it stays charged).
         */
        public static Decision exempted(Decision d) {
            if (d.allowed() && !d.waits()) {
                return d;
            }
            return new Decision(d.policy(), true, -1, 0, d.atMicros() - d.waitMicros(), d.states(), d.fallback());
        }

        /**
         * {@code d}, a slot of calls in flight, admitted at once whatever it said: a full key runs beside the others,
         * holding no lease.
         */
        public static Decision exemptedSlot(Decision d) {
            return d.allowed() ? d : new Decision(d.policy(), true, -1, 0, UNLEASED, d.states(), d.fallback());
        }

        boolean liveAt(long nowMicros) {
            return nowMicros < expiresMicros;
        }
    }

    /**
     * The instant of an exempt call of a policy of calls in flight admitted beside a full key: it holds no lease (the
     * store granted none), so there is none to renew or end.
     */
    public static final long UNLEASED = Long.MIN_VALUE;

    /** The overrides of one policy: its own, its plans' (by plan policy name) and its keys'. */
    private static final class Scope {
        volatile Active policy;
        final Map<String, Active> plans = new ConcurrentHashMap<>();
        final Map<String, Active> keys = new ConcurrentHashMap<>();

        boolean isEmpty() {
            return policy == null && plans.isEmpty() && keys.isEmpty();
        }
    }

    private final Clock clock;
    private volatile java.util.function.Supplier<java.util.concurrent.CompletionStage<?>> loader = () -> java.util.concurrent.CompletableFuture
            .completedFuture(null);
    /** Every override loaded, by target; the index below is kept in step with it under this object's monitor. */
    private final Map<LimitOverride.Target, Active> byTarget = new ConcurrentHashMap<>();
    private final Map<String, Scope> byPolicy = new ConcurrentHashMap<>();
    /** Raised by every change of what is loaded: the admin's live page reloads the list when it moves. */
    private volatile long version;

    public Overrides(Clock clock) {
        this.clock = clock;
    }

    /**
     * The overrides to use from now on, replacing all others: only what differs is changed, so a source that
     * returns everything each time (the in-process one) costs a lookup per override, not a new index.
     *
     * @return whether anything changed
     */
    public synchronized boolean replaceAll(List<LimitOverride> overrides) {
        Map<LimitOverride.Target, LimitOverride> wanted = new HashMap<>();
        overrides.forEach(o -> wanted.put(o.target(), o));
        List<LimitOverride.Target> gone = byTarget.keySet().stream().filter(t -> !wanted.containsKey(t)).toList();
        return apply(wanted.values(), gone);
    }

    /**
     * Sets {@code set} (replacing the overrides of their targets) and removes the overrides of {@code removed}.
     *
     * @return whether anything changed
     */
    public synchronized boolean apply(java.util.Collection<LimitOverride> set,
            java.util.Collection<LimitOverride.Target> removed) {
        boolean changed = false;
        for (LimitOverride.Target t : removed) {
            Active old = byTarget.remove(t);
            if (old != null) {
                unindex(t);
                changed = true;
            }
        }
        for (LimitOverride o : set) {
            Active old = byTarget.get(o.target());
            if (old != null && old.override.equals(o)) {
                continue; // the same override: its policies are kept
            }
            Active a = new Active(o);
            byTarget.put(o.target(), a);
            index(a);
            changed = true;
        }
        if (changed) {
            version++;
        }
        return changed;
    }

    private void index(Active a) {
        LimitOverride.Target t = a.override.target();
        Scope s = byPolicy.computeIfAbsent(t.policy(), n -> new Scope());
        if (t.key() != null) {
            s.keys.put(t.key(), a);
        } else if (t.plan() != null) {
            s.plans.put(t.policy() + "." + t.plan(), a);
        } else {
            s.policy = a;
        }
    }

    private void unindex(LimitOverride.Target t) {
        Scope s = byPolicy.get(t.policy());
        if (s == null) {
            return;
        }
        if (t.key() != null) {
            s.keys.remove(t.key());
        } else if (t.plan() != null) {
            s.plans.remove(t.policy() + "." + t.plan());
        } else {
            s.policy = null;
        }
        if (s.isEmpty()) {
            byPolicy.remove(t.policy());
        }
    }

    /** A number that moves whenever what is loaded changes. */
    public long version() {
        return version;
    }

    /** How many overrides are loaded, in force or not. */
    public int size() {
        return byTarget.size();
    }

    /** How many overrides are in force now. */
    public int activeCount() {
        long now = clock.nowMicros();
        int n = 0;
        for (Active a : byTarget.values()) {
            n += a.liveAt(now) ? 1 : 0;
        }
        return n;
    }

    /** Sets how {@link #reload()} loads the overrides from their source. */
    public void loadWith(java.util.function.Supplier<java.util.concurrent.CompletionStage<?>> load) {
        this.loader = load;
    }

    /** Loads the overrides from their source now (after a change made here, so it applies at once). */
    public java.util.concurrent.CompletionStage<?> reload() {
        return loader.get();
    }

    /**
     * Every override loaded, in force or not, by policy, plan and key (sorted on each call: for the admin, not per request).
     */
    public List<LimitOverride> all() {
        List<LimitOverride> sorted = new ArrayList<>(byTarget.size());
        byTarget.values().forEach(a -> sorted.add(a.override));
        sorted.sort(Comparator.comparing((LimitOverride o) -> o.target().policy())
                .thenComparing(o -> o.target().plan() == null ? "" : o.target().plan())
                .thenComparing(o -> o.target().key() == null ? "" : o.target().key()));
        return sorted;
    }

    /** The overrides in force now, by policy, plan and key. */
    public List<LimitOverride> active() {
        Instant now = now();
        return all().stream().filter(o -> o.activeAt(now)).toList();
    }

    /** Now, on the clock that decides expiry. */
    public Instant now() {
        long micros = clock.nowMicros();
        return Instant.ofEpochSecond(micros / 1_000_000, (micros % 1_000_000) * 1000);
    }

    /** Whether no override is loaded at all: the decision path then looks nothing up. */
    public boolean isEmpty() {
        return byPolicy.isEmpty();
    }

    /**
     * The override that decides a call of policy {@code base} made under {@code policy} for {@code key},
     * or {@code null}.
     */
    public Active find(String base, Policy policy, String key) {
        Map<String, Scope> index = byPolicy;
        if (index.isEmpty()) {
            return null;
        }
        Scope scope = index.get(base);
        Scope plan = policy.name().equals(base) ? null : index.get(policy.name());
        if (scope == null && plan == null) {
            return null;
        }
        long now = clock.nowMicros();
        Active a = plan == null ? null : live(plan.keys.get(key), now);
        if (a == null && scope != null) {
            a = live(scope.keys.get(key), now);
            a = a != null ? a : live(scope.plans.get(policy.name()), now);
            a = a != null ? a : live(scope.policy, now);
        }
        return a;
    }

    private static Active live(Active a, long nowMicros) {
        return a != null && a.liveAt(nowMicros) ? a : null;
    }

    /**
     * Decides a call of {@code policy} for {@code key} under {@code override} ({@code null}: none): a
     * block answers without asking the store, an exemption admits whatever the store says, new limits
     * are asked under the override's policy.
     */
    public CompletionStage<Decision> acquire(Active override, Rates store, Policy policy, String key, int cost,
            long maxWaitMicros) {
        if (override == null) {
            return store.acquire(policy, key, cost, maxWaitMicros);
        }
        if (override.override().block()) {
            return CompletableFuture.completedFuture(override.blocked(policy, clock.nowMicros()));
        }
        CompletionStage<Decision> decision = store.acquire(override.applyTo(policy), key, cost, maxWaitMicros);
        return override.override().exempt() ? decision.thenApply(Active::exempted) : decision;
    }

    /** As {@link #acquire} for a slot of calls in flight ({@link InFlightSlots#enter}). */
    public CompletionStage<Decision> enter(Active override, InFlightSlots store, Policy policy, String key,
            long maxWaitMicros) {
        if (override == null) {
            return store.enter(policy, key, maxWaitMicros);
        }
        if (override.override().block()) {
            return CompletableFuture.completedFuture(override.blocked(policy, clock.nowMicros()));
        }
        CompletionStage<Decision> decision = store.enter(override.applyTo(policy), key, maxWaitMicros);
        return override.override().exempt() ? decision.thenApply(Active::exemptedSlot) : decision;
    }

    /** The override set exactly for {@code target}, in force or not, or {@code null}. */
    public LimitOverride get(LimitOverride.Target target) {
        Active a = byTarget.get(target);
        return a == null ? null : a.override;
    }
}
