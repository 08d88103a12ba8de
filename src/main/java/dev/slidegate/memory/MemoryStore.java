package dev.slidegate.memory;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;

import dev.slidegate.api.Decision;
import dev.slidegate.api.LimitState;
import dev.slidegate.api.Policy;
import dev.slidegate.core.ByIdentity;
import dev.slidegate.core.Clock;
import dev.slidegate.core.DecisionBuffer;
import dev.slidegate.core.DecisionStore;
import dev.slidegate.core.InFlightSlots;
import dev.slidegate.core.KeptKey;
import dev.slidegate.core.LimiterStore;
import dev.slidegate.core.Rates;

/**
 * The in-process store: exact, thread safe (one monitor per key; a hot key of a one-limit token bucket, fixed window
 * or sliding counter is charged by compare-and-swap, see {@code KeyState}), answering synchronously.
 *
 * <p>
 * Each policy keeps at most {@code maxKeys} windows, so a flood of distinct keys on one policy can
 * never touch another policy's windows. When a policy's budget is full, its idle windows are dropped
 * (that loses nothing); if none is idle, no active window is dropped either: new callers of that policy
 * share one overflow window ({@value #OVERFLOW}), counted against the policy's limits like any key,
 * for as long as it counts anything (so a caller decided there never gets a window of its own while its
 * permits there still count). A flood therefore never hands anyone a fresh allowance, and a warning (at
 * most once a minute per policy) says that {@code slidegate.memory.max-keys} is too small.
 */
public final class MemoryStore implements LimiterStore {

    /** The key of the window that new callers of a full policy share. */
    public static final String OVERFLOW = "!overflow";
    private static final Logger LOG = Logger.getLogger(MemoryStore.class.getName());
    private static final long WARN_EVERY_MICROS = 60_000_000L;
    /** After a sweep that freed almost nothing, how long new keys go to the overflow window without sweeping again. */
    private static final long SWEEP_BACK_OFF_MICROS = 1_000_000L;

    /** One policy's windows and their budget. */
    private static final class Keys {
        final ConcurrentHashMap<String, KeyState> states = new ConcurrentHashMap<>();
        /** Windows held, the overflow window not included. */
        final AtomicInteger count = new AtomicInteger();
        volatile long noSweepUntil = Long.MIN_VALUE;
        volatile long lastWarning;
        volatile boolean warned;
    }

    private final Clock clock;
    private final int maxKeys;
    private final Map<String, Keys> policies = new ConcurrentHashMap<>();
    /** The leases of the policies that count calls in flight, by policy name. */
    private final Map<String, InFlight> inFlight = new ConcurrentHashMap<>();
    /** What {@link #learn} keeps, by policy name and key: the limits, until when (store µs). */
    private final Map<String, Learned> learnedLimits = new ConcurrentHashMap<>();

    private record Learned(List<dev.slidegate.api.Limit> limits, long untilMicros) {
    }

    /** The slots a new key's state starts with, by policy: shared by its keys ({@link KeyState.Slots}). */
    private final ByIdentity<Policy, KeyState.Slots> slots = new ByIdentity<>(KeyState.Slots::of);
    /**
     * The windows of the policy objects decided lately: a decision finds its policy's windows without hashing the name
     * (the callers hold their policy objects for good; an override's is new, and looked up once).
     */
    private final ByIdentity<Policy, Keys> known = new ByIdentity<>(p -> policies.computeIfAbsent(p.name(), n -> new Keys()));

    /**
     * A key whose calls decide without the monitor (an open cell or gate: a hot key), kept at hand so that its calls find
     * its state with one comparison instead of two lookups (the policy's windows, then the key among them). One for the
     * whole store, written rarely (see {@link #keepAtHand}) and only read otherwise: a lookup elsewhere is unchanged.
     */
    private volatile KeptKey<KeyState> atHand;

    /**
     * How long a key kept at hand stays there at least while it is still hot (µs): with several hot keys the one at hand
     * changes ten times a second at most, so keeping one allocates next to nothing; a key that was hot once and is
     * called rarely since takes the place of a hotter one for this long at most each time it is called.
     */
    private static final long AT_HAND_MICROS = 100_000;

    public MemoryStore(Clock clock, int maxKeys) {
        if (maxKeys < 1) {
            throw new IllegalArgumentException("maxKeys must be at least 1, was " + maxKeys);
        }
        this.clock = clock;
        this.maxKeys = maxKeys;
    }

    @Override
    public String name() {
        return "memory";
    }

    @Override
    public CompletionStage<Decision> acquire(Policy policy, String key, int cost, long maxWaitMicros) {
        try {
            return CompletableFuture.completedFuture(decide(policy, key, cost, maxWaitMicros));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Taken by every call of several policies, around their states' monitors ({@code KeyState.decideAll}). */
    private final Object groups = new Object();

    @Override
    public CompletionStage<List<Decision>> acquireAll(List<Asked> asks) {
        try {
            return CompletableFuture.completedFuture(decideAll(asks));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** The synchronous form of {@link #acquireAll}. */
    public List<Decision> decideAll(List<Asked> asks) {
        if (asks.isEmpty()) {
            throw new IllegalArgumentException("a call of several policies asks one at least");
        }
        Asked[] asked = asks.toArray(Asked[]::new);
        DecisionBuffer[] out = new DecisionBuffer[asked.length];
        for (int i = 0; i < asked.length; i++) { // (an ask is checked when it is made)
            out[i] = new DecisionBuffer(asked[i].policy().limits().size());
        }
        KeyState[] states = new KeyState[asked.length];
        while (true) {
            for (int i = 0; i < asked.length; i++) {
                states[i] = existing(asked[i].policy(), asked[i].key());
            }
            long now = clock.nowMicros(); // after the lookups, as in decide
            for (int i = 0; i < asked.length; i++) {
                if (states[i] == null) {
                    states[i] = stateOf(asked[i].policy(), asked[i].key(), now);
                }
                for (int j = 0; j < i; j++) {
                    if (states[j] == states[i]) {
                        throw new IllegalArgumentException("a call of several policies asks each policy and key once: '"
                                + asked[i].policy().name() + "' for one key twice");
                    }
                }
            }
            int r;
            synchronized (groups) {
                r = KeyState.decideAll(states, asked, now, out);
            }
            if (r == KeyState.ALL_ADMITTED) {
                List<Decision> all = new java.util.ArrayList<>(asked.length);
                for (DecisionBuffer b : out) {
                    all.add(b.toDecision());
                }
                return all;
            }
            if (r >= 0) {
                return List.of(out[r].toDecision());
            }
            forget(asked[-2 - r].policy(), asked[-2 - r].key());
        }
    }

    /** The synchronous form of {@link #acquire}, admitting at once or refusing: in process the store never blocks. */
    public Decision decide(Policy policy, String key, int cost) {
        return decide(policy, key, cost, 0);
    }

    /** The synchronous form of {@link #acquire}: a call that waits is answered at once with its reservation. */
    public Decision decide(Policy policy, String key, int cost, long maxWaitMicros) {
        DecisionBuffer into = new DecisionBuffer(policy.limits().size());
        decide(policy, key, cost, maxWaitMicros, into);
        return into.toDecision();
    }

    /**
     * {@link #decide} written into {@code into}, which the caller reuses: allocates nothing once the key exists and
     * the buffer has room for the policy's limits.
     */
    public void decide(Policy policy, String key, int cost, DecisionBuffer into) {
        decide(policy, key, cost, 0, into);
    }

    /**
     * {@link #decide(Policy, String, int, long)} written into {@code into}, as
     * {@link #decide(Policy, String, int, DecisionBuffer)}.
     */
    public void decide(Policy policy, String key, int cost, long maxWaitMicros, DecisionBuffer into) {
        Rates.checkRates(policy);
        checkCost(cost);
        DecisionStore.checkMaxWait(maxWaitMicros);
        while (true) {
            KeptKey<KeyState> h = atHand;
            boolean kept = h != null && h.holds(policy, key);
            KeyState state = kept ? h.value() : existing(policy, key);
            long now = clock.nowMicros(); // after the lookup, as in tryAcquire
            if ((state != null ? state : stateOf(policy, key, now)).decide(policy, now, cost, maxWaitMicros, into)) {
                if (!kept && state != null && state.open()) {
                    keepAtHand(h, policy, key, state, now);
                }
                return;
            }
            forget(policy, key);
        }
    }

    /**
     * Decides like {@link #decide} but reports only whether the call was admitted; allocates nothing
     * once the key exists, for callers that need no headers (and for benchmarks).
     */
    public boolean tryAcquire(Policy policy, String key, int cost) {
        Rates.checkRates(policy);
        checkCost(cost);
        while (true) {
            KeptKey<KeyState> h = atHand;
            boolean kept = h != null && h.holds(policy, key);
            KeyState state = kept ? h.value() : existing(policy, key);
            // the clock after the lookup: +10% over 10 000 cold keys (docs/BENCHMARKS.md), likely because the clock's
            // fenced read no longer delays the lookup's cache misses; either instant is as exact (the key's state
            // orders its decisions under it, and time never steps back for a key)
            long now = clock.nowMicros();
            int outcome = (state != null ? state : stateOf(policy, key, now)).tryAcquire(policy, now, cost);
            if (outcome >= 0) {
                if (!kept && state != null && state.open()) {
                    keepAtHand(h, policy, key, state, now);
                }
                return outcome == 1;
            }
            forget(policy, key);
        }
    }

    /**
     * Keeps a hot key's state at hand ({@link #atHand}) in place of {@code was}, unless that is a key still hot and kept
     * for less than {@link #AT_HAND_MICROS}: with many hot keys the one at hand changes at most ten times a second.
     */
    private void keepAtHand(KeptKey<KeyState> was, Policy policy, String key, KeyState state, long now) {
        if (was == null || !was.value().open() || was.keptFor(now, AT_HAND_MICROS)) {
            atHand = KeptKey.of(policy, key, state, now);
        }
    }

    @Override
    public CompletionStage<Decision> enter(Policy policy, String key, long maxWaitMicros) {
        try {
            return CompletableFuture.completedFuture(enterNow(policy, key, maxWaitMicros));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** The synchronous form of {@link #enter}: a lease while fewer than N are live (one slot a call). */
    public Decision enterNow(Policy policy, String key, long maxWaitMicros) {
        InFlightSlots.checkInFlight(policy);
        DecisionStore.checkMaxWait(maxWaitMicros); // a slot frees when a call ends: nothing is reserved for later
        long now = clock.nowMicros();
        Decision d = inFlight(policy).enter(policy, DecisionStore.checkKey(key), now);
        if (d != null) {
            return d;
        }
        warnFull(policy, known.get(policy), now, true);
        long hint = InFlightSlots.inFlightRetryMicros(policy);
        return new Decision(policy, false, 0, hint, now, List.of(new LimitState(policy.limits().get(0), 0, hint)));
    }

    private InFlight inFlight(Policy policy) {
        return inFlight.computeIfAbsent(policy.name(), n -> new InFlight(maxKeys));
    }

    @Override
    public CompletionStage<List<Long>> renew(Policy policy, String key, List<Long> leases) {
        return renewOrEnd(policy, key, leases, policy.leaseMicros());
    }

    @Override
    public CompletionStage<List<Long>> leave(Policy policy, String key, List<Long> leases) {
        return renewOrEnd(policy, key, leases, 0);
    }

    @Override
    public CompletionStage<Turn> queue(Policy policy, String key, List<Long> tickets, long lapseMicros) {
        try {
            List<Long> named = InFlightSlots.checkTickets(policy, tickets);
            if (lapseMicros < 1) {
                throw new IllegalArgumentException("a ticket lapses after 1 us at least");
            }
            long now = clock.nowMicros();
            Turn turn = inFlight(policy).queue(policy, DecisionStore.checkKey(key), named, lapseMicros, now);
            if (turn == null) { // no room for one more key in flight: each stays unserved, and is told so once a minute
                warnFull(policy, known.get(policy), now, true);
                return CompletableFuture.completedFuture(new Turn(named, java.util.Collections.nCopies(named.size(), 0L), 0,
                        now));
            }
            return CompletableFuture.completedFuture(turn);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletionStage<Void> unqueue(Policy policy, String key, List<Long> tickets) {
        try {
            List<Long> named = InFlightSlots.checkTickets(policy, tickets);
            InFlight table = inFlight.get(policy.name());
            if (table != null) {
                table.unqueue(key, named, clock.nowMicros());
            }
            return CompletableFuture.completedFuture(null);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private CompletionStage<List<Long>> renewOrEnd(Policy policy, String key, List<Long> leases, long leaseMicros) {
        try {
            List<Long> named = InFlightSlots.checkLeases(policy, leases);
            InFlight table = inFlight.get(policy.name());
            return CompletableFuture.completedFuture(
                    table == null ? named : table.renewOrEnd(key, named, clock.nowMicros(), leaseMicros));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private static void checkCost(int cost) {
        if (cost < 1) {
            throw new IllegalArgumentException("cost must be at least 1, was " + cost);
        }
    }

    /** The state of a key that has one, or null. */
    private KeyState existing(Policy policy, String key) {
        return known.get(policy).states.get(key);
    }

    private KeyState stateOf(Policy policy, String key, long now) {
        Keys keys = known.get(policy);
        KeyState state = keys.states.get(key);
        if (state == null) {
            // while the overflow window still counts something, new callers keep sharing it: one that
            // was decided there never gets a window of its own while its permits there still count
            KeyState overflow = keys.states.get(OVERFLOW);
            if (overflow != null && overflow.activeAt(now)) {
                warnFull(policy, keys, now, false);
                return overflow;
            }
        }
        while (state == null) {
            if (keys.count.incrementAndGet() > maxKeys) { // the budget is full: make room, or share the overflow window
                keys.count.decrementAndGet();
                if (!sweep(keys, now)) {
                    warnFull(policy, keys, now, false);
                    return keys.states.computeIfAbsent(OVERFLOW, k -> newState(policy));
                }
            } else {
                KeyState created = newState(policy);
                state = keys.states.putIfAbsent(key, created);
                if (state == null) {
                    return created;
                }
                keys.count.decrementAndGet(); // another thread created it first
            }
            state = keys.states.get(key);
        }
        return state;
    }

    /**
     * Drops the idle windows of a full policy; {@code false} when that left no room. A sweep that freed
     * (almost) nothing is not repeated for a second, so a flood costs one pass a second, not one a key.
     */
    private boolean sweep(Keys keys, long now) {
        if (now < keys.noSweepUntil) {
            return false;
        }
        synchronized (keys) {
            if (keys.count.get() < maxKeys) {
                return true;
            }
            if (now < keys.noSweepUntil) {
                return false;
            }
            int before = keys.count.get();
            keys.states.entrySet().removeIf(e -> e.getValue().retire(now, false) && dropped(keys, e.getKey()));
            int freed = before - keys.count.get();
            if (freed < Math.max(1, maxKeys / 100)) {
                keys.noSweepUntil = now + SWEEP_BACK_OFF_MICROS;
            }
            return keys.count.get() < maxKeys;
        }
    }

    /** Says, at most once a minute per policy, that new callers of {@code policy} share the overflow window. */
    private void warnFull(Policy policy, Keys keys, long now, boolean inFlight) {
        if (keys.warned && now - keys.lastWarning < WARN_EVERY_MICROS) {
            return;
        }
        synchronized (keys) {
            if (!keys.warned || now - keys.lastWarning >= WARN_EVERY_MICROS) {
                keys.warned = true;
                keys.lastWarning = now;
                LOG.log(Level.WARNING, "Slidegate memory store: policy ''{0}'' holds {1} active keys, "
                        + "slidegate.memory.max-keys={1}; " + (inFlight
                                ? "new callers are refused until calls of those keys end"
                                : "its new callers share one overflow window until keys go idle")
                        + ", no window of another policy is touched. Raise slidegate.memory.max-keys.",
                        new Object[] { policy.name(), maxKeys });
            }
        }
    }

    /** Counts a window removed from {@code keys}; always {@code true}, for use in {@code removeIf}. */
    private static boolean dropped(Keys keys, String key) {
        if (!OVERFLOW.equals(key)) {
            keys.count.decrementAndGet();
        }
        return true;
    }

    /** Drops a key whose state was retired (normally already removed). */
    private void forget(Policy policy, String key) {
        KeptKey<KeyState> h = atHand;
        if (h != null && h.holds(policy, key)) {
            atHand = null;
        }
        Keys keys = policies.get(policy.name());
        KeyState state = keys == null ? null : keys.states.get(key);
        if (state != null && state.isRetired() && keys.states.remove(key, state)) {
            dropped(keys, key);
        }
    }

    private KeyState newState(Policy policy) {
        if (policy.inFlight()) {
            throw new IllegalArgumentException(
                    "policy '" + policy.name() + "' limits calls in flight: it has no windows to hold or count");
        }
        KeyState.Slots s = slots.get(policy);
        return switch (policy.strategy()) {
            case SLIDING_LOG -> new SlidingLogState(policy, s);
            case FIXED_WINDOW -> new FixedWindowState(policy, s);
            case SLIDING_COUNTER -> new SlidingCounterState(policy, s);
            case TOKEN_BUCKET -> new TokenBucketState(policy, s);
        };
    }

    @Override
    public CompletionStage<Long> hold(Policy policy, String key, long forMicros) {
        return held(policy, key, forMicros, false);
    }

    @Override
    public CompletionStage<Long> block(Policy policy, String key, long forMicros) {
        return held(policy, key, forMicros, true);
    }

    private CompletionStage<Long> held(Policy policy, String key, long forMicros, boolean unlessHeld) {
        DecisionStore.checkHold(forMicros);
        try {
            long now = clock.nowMicros();
            while (true) {
                KeyState state = stateOf(policy, key, now);
                if (state.hold(now, now + forMicros, unlessHeld)) {
                    return CompletableFuture.completedFuture(state.heldFor(now));
                }
                forget(policy, key);
            }
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Gives back into the key's log, or the overflow log its call was decided in, as {@link #settle} settles. */
    @Override
    public CompletionStage<Void> refund(Policy policy, String key, long atMicros, int cost) {
        try {
            if (policy.settles()) {
                throw new IllegalArgumentException("policy '" + policy.name() + "' settles what it gives back");
            }
            long now = clock.nowMicros();
            Keys keys = policies.get(policy.name());
            KeyState state = keys == null ? null : keys.states.get(key);
            if (state == null && keys != null) {
                state = keys.states.get(OVERFLOW);
            }
            if (state != null && cost > 0) {
                state.refund(now, atMicros, cost);
            }
            return CompletableFuture.completedFuture(null);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Settles into the key's window, or the overflow window its call was decided in; a key no longer kept counts the
     * admission nowhere, so there is nothing to settle.
     */
    @Override
    public CompletionStage<Long> settle(Policy policy, String key, long admittedAtMicros, int estimate, long actual) {
        try {
            long delta = DecisionStore.settlement(policy, estimate, actual);
            long now = clock.nowMicros();
            Keys keys = policies.get(policy.name());
            KeyState state = keys == null ? null : keys.states.get(key);
            if (state == null && keys != null) {
                state = keys.states.get(OVERFLOW);
            }
            if (state == null && delta > 0 && policy.strategy() == dev.slidegate.api.Strategy.TOKEN_BUCKET) {
                // a bucket full again is no longer kept: an overage is charged from full
                while (!(state = stateOf(policy, key, now)).settle(now, admittedAtMicros, delta)) {
                    forget(policy, key);
                }
            } else if (state != null && delta != 0) {
                state.settle(now, admittedAtMicros, delta);
            }
            return CompletableFuture.completedFuture(now);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletionStage<Long> heldFor(Policy policy, String key) {
        Keys keys = policies.get(policy.name());
        KeyState state = keys == null ? null : keys.states.get(key);
        return CompletableFuture.completedFuture(state == null ? 0L : state.heldFor(clock.nowMicros()));
    }

    /**
     * Keeps the limits beside the key's state, as many keys as the store counts at most ({@code maxKeys}): when that many
     * are kept, those expired go first, and a key beyond them is refused with a sentence (the caller paces at its
     * configured limits).
     */
    @Override
    public CompletionStage<Void> learn(Policy policy, String key, List<dev.slidegate.api.Limit> limits, long forMicros) {
        List<dev.slidegate.api.Limit> kept = DecisionStore.checkLearned(limits, forMicros);
        String id = policy.name() + '\u0000' + DecisionStore.checkKey(key);
        if (kept.isEmpty()) {
            learnedLimits.remove(id);
            return CompletableFuture.completedFuture(null);
        }
        long now = clock.nowMicros();
        if (learnedLimits.size() >= maxKeys && !learnedLimits.containsKey(id)) {
            learnedLimits.values().removeIf(l -> l.untilMicros() <= now);
            if (learnedLimits.size() >= maxKeys) {
                return CompletableFuture.failedFuture(new IllegalStateException(
                        "the in-process store keeps learned limits for " + maxKeys + " keys at most, all in use"));
            }
        }
        learnedLimits.put(id, new Learned(kept, now + forMicros));
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletionStage<List<dev.slidegate.api.Limit>> learned(Policy policy, String key) {
        Learned l = learnedLimits.isEmpty() ? null : learnedLimits.get(policy.name() + '\u0000' + key);
        if (l == null || l.untilMicros() <= clock.nowMicros()) {
            return CompletableFuture.completedFuture(List.of());
        }
        return CompletableFuture.completedFuture(l.limits());
    }

    @Override
    public CompletionStage<Void> reset(Policy policy, String key) {
        if (!learnedLimits.isEmpty()) {
            learnedLimits.remove(policy.name() + '\u0000' + key);
        }
        InFlight leases = inFlight.get(policy.name());
        if (leases != null) {
            leases.reset(key);
        }
        Keys keys = policies.get(policy.name());
        KeyState state = keys == null ? null : keys.states.remove(key);
        if (state != null) {
            state.retire(0, true);
            dropped(keys, key);
        }
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletionStage<Decision> peek(Policy policy, String key) {
        long now = clock.nowMicros();
        if (policy.inFlight()) {
            InFlight leases = inFlight.get(policy.name());
            return CompletableFuture.completedFuture(leases != null ? leases.peek(policy, key, now)
                    : new Decision(policy, true, -1, 0, now, LimitState.untouched(policy.limits())));
        }
        Keys keys = policies.get(policy.name());
        KeyState state = keys == null ? null : keys.states.get(key);
        if (state == null) {
            return CompletableFuture
                    .completedFuture(new Decision(policy, true, -1, 0, now, LimitState.untouched(policy.limits())));
        }
        return CompletableFuture.completedFuture(state.peek(policy, now));
    }

    @Override
    public CompletionStage<Long> oldestLeaseAge(Policy policy, String key) {
        InFlight leases = inFlight.get(policy.name());
        long now = clock.nowMicros();
        long oldest = leases == null ? Long.MAX_VALUE : leases.oldest(key, now);
        return CompletableFuture.completedFuture(oldest == Long.MAX_VALUE ? -1L : Math.max(0, now - oldest));
    }

    /** Keys in name order; the cursor is the last key of the previous page. */
    @Override
    public CompletionStage<KeyPage> keys(Policy policy, String cursor, int limit) {
        long now = clock.nowMicros();
        Keys keys = policies.get(policy.name());
        Map<String, KeyState> states = keys == null ? Map.of() : keys.states;
        InFlight leases = inFlight.get(policy.name());
        java.util.stream.Stream<String> active = leases != null ? leases.keysInFlight(now).stream()
                : states.entrySet().stream().filter(e -> e.getValue().activeAt(now)).map(Map.Entry::getKey);
        List<String> page = active.filter(k -> cursor.isEmpty() || k.compareTo(cursor) > 0).sorted().limit(limit + 1L)
                .toList();
        boolean more = page.size() > limit;
        List<String> shown = more ? page.subList(0, limit) : page;
        return CompletableFuture.completedFuture(new KeyPage(shown, more ? shown.get(shown.size() - 1) : null));
    }

    @Override
    public CompletionStage<Long> count(Policy policy) {
        long now = clock.nowMicros();
        InFlight leases = inFlight.get(policy.name());
        if (leases != null) {
            return CompletableFuture.completedFuture((long) leases.keysInFlight(now).size());
        }
        Keys keys = policies.get(policy.name());
        return CompletableFuture
                .completedFuture(keys == null ? 0L : keys.states.values().stream().filter(s -> s.activeAt(now)).count());
    }

    /** How many keys the store holds now, over all policies (overflow windows not included). */
    public int size() {
        return policies.values().stream().mapToInt(k -> k.count.get()).sum();
    }
}
