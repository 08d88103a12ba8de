package dev.slidegate.core;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Limit;
import dev.slidegate.api.LimitState;
import dev.slidegate.api.Policy;

/**
 * Hot keys at memory speed (issue 61): a decorator of a shared store that, for a key this instance sees hot, takes a
 * batch of permits ahead in one store call ({@link PermitsAhead}) and admits the key's calls from it, in memory, until
 * the batch is used or its time is up; what was not used it gives back. Exact: the store counts every permit of a batch
 * in every window its use could fall in (docs/strategies.md, "Hot keys").
 *
 * <p>
 * A key is hot by its own rate, on this instance: {@value #HOT_CALLS} calls or more within one tick of
 * {@value #TICK_MILLIS} ms; cold again below a quarter of that for two ticks. Cold keys go to the store as before, at the
 * cost of one count in a small table. Only policies whose strategy takes batches ({@link PermitsAhead#takesAhead}) that refuse
 * at once what they refuse
 * (no {@code count-rejected}) and enforce (no dry-run), with every window at least {@value #WINDOW_SHARE} ms long, unless
 * their {@code take-ahead} is off. A call that may wait and finds no permit here goes to the store as before, and so do
 * calls of several policies.
 *
 * <p>
 * A batch is usable for {@code min(100 ms, shortest window / 20)}: its permits count that much longer than a call's,
 * which is the under-admission it costs under a flood (about 5% at most). Its size follows the key's rate here (the
 * permits of one and a half times its usable time), at most a quarter of the smallest N shared among the instances on
 * the store, so that instances sharing a key share its room.
 */
public final class HotKeys extends ForwardingStore {

    /** Calls of one key within one tick that make it hot on this instance. */
    public static final int HOT_CALLS = 16;
    static final int TICK_MILLIS = 50;
    static final long TICK_NANOS = TICK_MILLIS * 1_000_000L;
    /** The longest time a batch is usable for. */
    public static final long MAX_USABLE_MICROS = 100_000;
    /** A batch is usable for at most this share of the shortest window (1/20); windows shorter than 20 ms take none. */
    static final int WINDOW_SHARE = 20;
    /** The most permits in one batch. */
    public static final int MAX_BATCH = 10_000;
    /** The most keys hot at once on this instance; more are decided by the store one call at a time. */
    static final int MAX_HOT = 1024;
    private static final int SKETCH = 4096;

    private final PermitsAhead ahead;
    private final LongSupplier nanoTime;
    private final IntSupplier instances;
    private final Predicate<String> off;
    /** The hot keys, by policy name and key. */
    private final ConcurrentHashMap<String, ConcurrentHashMap<String, Hot>> hot = new ConcurrentHashMap<>();
    private final AtomicInteger hotCount = new AtomicInteger();
    /** Calls per key and tick, for keys not hot: fingerprint (24 bits), tick (24), calls (16). */
    private final AtomicLongArray sketch = new AtomicLongArray(SKETCH);
    private final AtomicLong lastSweep = new AtomicLong();
    /** Counts resets: a batch taken across one is not used. */
    private final AtomicLong resets = new AtomicLong();
    private final LongAdder takes = new LongAdder();
    private final LongAdder taken = new LongAdder();
    private final LongAdder used = new LongAdder();
    private final LongAdder givenBack = new LongAdder();

    /**
     * @param store the shared store, beneath
     * @param ahead the same store's batches
     * @param nanoTime the instance's monotonic clock
     * @param instances how many instances share the store
     * @param off the policies whose {@code take-ahead} is off
     */
    public HotKeys(DecisionStore store, PermitsAhead ahead, LongSupplier nanoTime, IntSupplier instances,
            Predicate<String> off) {
        super(store);
        this.ahead = ahead;
        this.nanoTime = nanoTime;
        this.instances = instances;
        this.off = off;
        this.lastSweep.set(nanoTime.getAsLong());
    }

    /**
     * How long a batch of a policy is usable for (µs), by policy object, or 0 when its calls take none: worked out once per
     * object, not per call.
     */
    private final ByIdentity<Policy, Long> usable = new ByIdentity<>(this::usableFor);

    /**
     * {@code min(100 ms, shortest window / 20)} for a policy whose strategy takes batches and that refuses at once what
     * it refuses, enforces, has no window shorter than 20 ms and whose take-ahead is on; else 0.
     */
    private long usableFor(Policy policy) {
        long shortest = Long.MAX_VALUE;
        for (Limit l : policy.limits()) {
            shortest = Math.min(shortest, l.windowMicros());
        }
        boolean takes = PermitsAhead.takesAhead(policy) && !policy.countRejected() && !policy.dryRun()
                && shortest >= WINDOW_SHARE * 1000L && !off.test(policy.name());
        return takes ? Math.min(MAX_USABLE_MICROS, shortest / WINDOW_SHARE) : 0;
    }

    @Override
    public CompletionStage<Decision> acquire(Policy policy, String key, int cost, long maxWaitMicros) {
        KeptKey<Kept> a = atHand;
        if (a != null && a.holds(policy, key) && !a.value().hot.gone) {
            long now = nanoTime.getAsLong();
            sweep(now);
            return a.value().hot.acquire(policy, cost, maxWaitMicros, now, a.value().usable);
        }
        long usableMicros = usable.get(policy);
        if (usableMicros == 0) {
            return delegate.acquire(policy, key, cost, maxWaitMicros);
        }
        long now = nanoTime.getAsLong();
        sweep(now);
        ConcurrentHashMap<String, Hot> ofPolicy = hot.get(policy.name());
        Hot h = ofPolicy == null ? null : ofPolicy.get(key);
        if (h != null && (a == null || a.value().hot.gone || a.keptFor(now, AT_HAND_NANOS))) {
            atHand = KeptKey.of(policy, key, new Kept(h, usableMicros), now);
        }
        if (h == null) {
            if (!counted(policy, key, now) || hotCount.get() >= MAX_HOT) {
                return delegate.acquire(policy, key, cost, maxWaitMicros);
            }
            ofPolicy = hot.computeIfAbsent(policy.name(), n -> new ConcurrentHashMap<>());
            h = ofPolicy.computeIfAbsent(key, k -> {
                hotCount.incrementAndGet();
                return new Hot(k, policy, now);
            });
        }
        return h.acquire(policy, cost, maxWaitMicros, now, usableMicros);
    }

    /** A hot key kept at hand, and how long its batches are usable under the policy object it was called with. */
    private record Kept(Hot hot, long usable) {
    }

    private static final long AT_HAND_NANOS = 100_000_000L;
    /**
     * One hot key kept at hand: its calls find it with one comparison instead of two map lookups. Replaced when it went
     * cold or was kept {@link #AT_HAND_NANOS} (the calls of other hot keys meanwhile find theirs in the maps).
     */
    private volatile KeptKey<Kept> atHand;

    /** Counts a call of a key not hot; whether the key is hot now. */
    private boolean counted(Policy policy, String key, long now) {
        int hash = policy.name().hashCode() * 31 + key.hashCode();
        hash ^= hash >>> 16;
        hash *= 0x45d9f3b;
        hash ^= hash >>> 16;
        int slot = hash & (SKETCH - 1);
        long fingerprint = (hash >>> 8) & 0xFFFFFFL;
        long tick = (now / TICK_NANOS) & 0xFFFFFFL;
        while (true) {
            long v = sketch.get(slot);
            long calls = (v >>> 40) == fingerprint && ((v >>> 16) & 0xFFFFFFL) == tick ? (v & 0xFFFF) + 1 : 1;
            long next = fingerprint << 40 | tick << 16 | Math.min(calls, 0xFFFF);
            if (sketch.compareAndSet(slot, v, next)) {
                return calls >= HOT_CALLS;
            }
        }
    }

    /** At most once a tick: keys that had no call for two ticks go cold, giving back what they hold. */
    private void sweep(long now) {
        long last = lastSweep.get();
        if (now - last < TICK_NANOS || !lastSweep.compareAndSet(last, now)) {
            return;
        }
        for (ConcurrentHashMap<String, Hot> ofPolicy : hot.values()) {
            for (Hot h : ofPolicy.values()) {
                if (now - h.lastCallNanos() > 2 * TICK_NANOS) {
                    h.cool();
                }
            }
        }
    }

    /** A reset (here or on any instance): every batch is dropped unused, its permits gone with the key. */
    public void forgetAll() {
        resets.incrementAndGet();
        for (ConcurrentHashMap<String, Hot> ofPolicy : hot.values()) {
            for (Hot h : ofPolicy.values()) {
                h.drop();
            }
        }
    }

    @Override
    public CompletionStage<Long> hold(Policy policy, String key, long forMicros) {
        stopUsing(policy, key); // no call goes out of this instance's batch before the hold ends either
        return delegate.hold(policy, key, forMicros);
    }

    @Override
    public CompletionStage<Long> block(Policy policy, String key, long forMicros) {
        stopUsing(policy, key);
        return delegate.block(policy, key, forMicros);
    }

    private void stopUsing(Policy policy, String key) {
        ConcurrentHashMap<String, Hot> ofPolicy = hot.get(policy.name());
        Hot h = ofPolicy == null ? null : ofPolicy.get(key);
        if (h != null) {
            h.retire();
        }
    }

    /** Batches taken from the store. */
    public long takes() {
        return takes.sum();
    }

    /** Permits taken ahead, every batch's. */
    public long taken() {
        return taken.sum();
    }

    /** Permits of batches that admitted a call. */
    public long used() {
        return used.sum();
    }

    /** Permits given back unused. */
    public long givenBack() {
        return givenBack.sum();
    }

    /** Keys hot on this instance now. */
    public int hotKeys() {
        return hotCount.get();
    }

    /** A call waiting for the batch a take will bring. */
    private record Pending(int cost, CompletableFuture<Decision> answer) {
    }

    /**
     * A batch: what the store said, when it was asked, how much of it admitted calls. {@code used} only grows, by one
     * atomic add per call (no compare-and-swap to retry, so no caller starves on a busy key): a call whose add passes
     * the batch's size is not admitted, and the permits it counted are neither used nor given back (fewer admitted,
     * never more). Closing it sets it to its size at least, so that no permit given back is ever used.
     */
    private static final class Batch {
        final PermitsAhead.Taken taken;
        final long sentNanos;
        final long deadlineNanos;
        final java.util.concurrent.atomic.AtomicInteger used;

        Batch(PermitsAhead.Taken taken, long sentNanos, long usableMicros) {
            this.taken = taken;
            this.sentNanos = sentNanos;
            // by this instance's clock from before the store took it: never later than the store's last use instant
            // (usable time, or a fixed window's end the store said comes sooner)
            this.deadlineNanos = sentNanos + Math.min(usableMicros, taken.lastUseMicros() - taken.takenAtMicros()) * 1000;
            this.used = new java.util.concurrent.atomic.AtomicInteger();
        }

        int left() {
            return Math.max(0, taken.permits() - used.get());
        }

        /** The permits used so far (the adds that passed the batch's size not counted). */
        int usedSoFar() {
            return Math.min(used.get(), taken.permits());
        }

        /**
         * A call admitted from this batch at {@code now} (read by the caller, before its deadline: the instant its permit is
         * used at), or null when fewer than {@code cost} are left: the limits as the take said them, with what is left here.
         */
        Decision admit(Policy policy, int cost, long now) {
            int u = used.getAndAdd(cost);
            if (u + cost > taken.permits()) {
                return null;
            }
            int left = taken.permits() - u - cost;
            long elapsed = Math.max(0, (now - sentNanos) / 1000);
            Decision d = taken.decision();
            List<LimitState> was = d.states();
            LimitState[] states = new LimitState[was.size()];
            for (int i = 0; i < states.length; i++) {
                LimitState s = was.get(i);
                states[i] = new LimitState(s.limit(), Math.min(s.limit().permits(), s.remaining() + left),
                        Math.max(0, s.resetMicros() - elapsed));
            }
            return new Decision(policy, true, -1, 0, d.atMicros() + elapsed, List.of(states), false, 0);
        }

        /** Closes it: nothing more is admitted from it. The first unused permit, 1-based. */
        int close() {
            return Math.min(used.getAndSet(taken.permits()), taken.permits()) + 1;
        }
    }

    /** One hot key of one policy on this instance. */
    private final class Hot {
        private final String key;
        private volatile Policy policy;
        private volatile Batch batch;
        /** The calls waiting for a take in flight; null when none is. */
        private List<Pending> pending;
        private long tick;
        private final long hotSince;
        private int permitsThisTick;
        private int permitsLastTick;
        /** Of the batch in force, the permits used that {@link #permitsThisTick} counts already. */
        private int folded;
        private volatile long lastCallNanos;
        private volatile boolean gone;

        Hot(String key, Policy policy, long now) {
            this.key = key;
            this.policy = policy;
            this.tick = now / TICK_NANOS;
            this.hotSince = tick;
            this.permitsThisTick = HOT_CALLS;
            this.lastCallNanos = now;
        }

        long lastCallNanos() {
            return lastCallNanos;
        }

        CompletionStage<Decision> acquire(Policy asked, int cost, long maxWaitMicros, long now, long usable) {
            // the fast path, without the lock: the batch in force has room, and the tick has not turned
            Batch fast = batch;
            if (fast != null && asked == policy && now - fast.deadlineNanos < 0 && now / TICK_NANOS == tick && !gone) {
                Decision d = fast.admit(asked, cost, now);
                if (d != null) {
                    used.add(cost); // (counted in the key's rate from the batch's count: fold())
                    return CompletableFuture.completedFuture(d);
                }
            }
            Batch retired = null;
            boolean ordinary = false;
            int most = 0;
            CompletableFuture<Decision> waiting = null;
            synchronized (this) {
                lastCallNanos = now;
                fold();
                long t = now / TICK_NANOS;
                if (t != tick) {
                    permitsLastTick = t == tick + 1 ? permitsThisTick : 0;
                    permitsThisTick = 0;
                    tick = t;
                }
                permitsThisTick += cost;
                if (asked != policy && !asked.equals(policy)) { // an override or a plan changed its limits: a batch of the old ones is done
                    retired = batch;
                    setBatch(null);
                    policy = asked;
                }
                Batch b = batch;
                if (b != null && now - b.deadlineNanos < 0 && !gone) {
                    Decision d = b.admit(asked, cost, now);
                    if (d != null) {
                        folded += cost; // counted above
                        used.add(cost);
                        return CompletableFuture.completedFuture(d);
                    }
                }
                if (b != null) {
                    retired = b;
                    setBatch(null);
                }
                // cold again: fewer than a quarter of the hot rate in the whole tick before this one
                if (gone || (tick > hotSince + 1 && permitsLastTick < HOT_CALLS / 4)) {
                    ordinary = true;
                    if (!gone) {
                        leave();
                    }
                } else if (pending != null) {
                    if (maxWaitMicros > 0) {
                        ordinary = true;
                    } else {
                        waiting = new CompletableFuture<>();
                        pending.add(new Pending(cost, waiting)); // (a call that may wait went to the store above)
                    }
                } else {
                    pending = new ArrayList<>();
                    most = size(asked, cost, usable);
                }
            }
            giveBack(retired);
            if (ordinary) {
                return delegate.acquire(asked, key, cost, maxWaitMicros);
            }
            if (waiting != null) {
                return waiting;
            }
            return take(asked, cost, most, maxWaitMicros, now, usable);
        }

        /** The permits of one and a half usable times at the key's rate here, within the batch's bounds. */
        private int size(Policy p, int cost, long usable) {
            long perTick = Math.max(permitsThisTick, permitsLastTick);
            long wanted = (long) Math.ceil(perTick * 1.5 * usable / (TICK_MILLIS * 1000.0));
            int smallest = Integer.MAX_VALUE;
            for (Limit l : p.limits()) {
                smallest = Math.min(smallest, l.permits());
            }
            long share = Math.max(1, smallest / (4L * Math.max(1, instances.getAsInt())));
            return (int) Math.max(cost, Math.min(Math.min(wanted, share), MAX_BATCH));
        }

        private CompletionStage<Decision> take(Policy p, int cost, int most, long maxWaitMicros, long sent, long usable) {
            long generation = resets.get();
            CompletionStage<PermitsAhead.Taken> asked;
            try {
                asked = ahead.takeAhead(p, key, cost, most, usable);
            } catch (RuntimeException e) {
                asked = CompletableFuture.failedFuture(e);
            }
            takes.increment();
            return asked.handle((t, error) -> {
                List<Pending> waiting;
                Batch retired = null;
                List<Pending> admitted = new ArrayList<>();
                List<Decision> answers = new ArrayList<>();
                Decision first = null;
                synchronized (this) {
                    waiting = pending;
                    pending = null;
                    if (error == null && t.permits() > 0) {
                        taken.add(t.permits());
                        used.add(cost);
                        Batch b = new Batch(t, sent, usable);
                        first = b.admit(p, cost, sent);
                        long at = nanoTime.getAsLong(); // a waiting call uses its permit now: before the deadline only
                        for (Pending w : waiting) {
                            Decision d = gone || at - b.deadlineNanos >= 0 ? null : b.admit(p, w.cost(), at);
                            if (d != null) {
                                used.add(w.cost());
                                answers.add(d);
                                admitted.add(w);
                            }
                        }
                        if (gone || generation != resets.get() || !p.equals(policy)) {
                            retired = generation == resets.get() ? b : null; // a reset took its permits already
                        } else {
                            retired = batch;
                            setBatch(b);
                        }
                    }
                }
                giveBack(retired);
                for (int i = 0; i < admitted.size(); i++) {
                    admitted.get(i).answer().complete(answers.get(i));
                }
                for (Pending w : waiting) {
                    if (admitted.contains(w)) {
                        continue;
                    }
                    if (error != null) {
                        w.answer().completeExceptionally(error);
                    } else if (!t.decision().allowed() && w.cost() >= cost) { // refused for less: refused for as much
                        w.answer().complete(t.decision());
                    } else {
                        delegate.acquire(p, key, w.cost(), 0).whenComplete((d, e) -> {
                            if (e != null) {
                                w.answer().completeExceptionally(e);
                            } else {
                                w.answer().complete(d);
                            }
                        });
                    }
                }
                if (error != null) {
                    return CompletableFuture.<Decision> failedFuture(error);
                }
                if (!t.decision().allowed() && maxWaitMicros > 0) {
                    return delegate.acquire(p, key, cost, maxWaitMicros);
                }
                return CompletableFuture.completedFuture(first != null ? first : t.decision());
            }).thenCompose(s -> s);
        }

        /**
         * (Holding the lock.) Counts the permits used from the batch in force since the last fold in the key's rate: calls
         * admitted from a batch without the lock write nothing of the key's own (a count they wrote, shared by the threads
         * calling the key, moved between the cores at every call: 5 M calls a second on two threads against 27).
         */
        private void fold() {
            Batch b = batch;
            if (b != null) {
                int u = b.usedSoFar();
                permitsThisTick += u - folded;
                folded = u;
            }
        }

        /** (Holding the lock.) Replaces the batch in force, counting what was used from the one before. */
        private void setBatch(Batch b) {
            fold();
            batch = b;
            folded = b == null ? 0 : b.usedSoFar();
        }

        /** Stops using its batch and gives back what is left. */
        void retire() {
            Batch b;
            synchronized (this) {
                b = batch;
                setBatch(null);
            }
            giveBack(b);
        }

        /** The key went cold: gone from the hot keys, its batch given back. */
        void cool() {
            synchronized (this) {
                if (!gone) {
                    leave();
                }
            }
            retire();
        }

        /** A reset: its batch closed and dropped without a give-back (the reset took its permits with the key). */
        void drop() {
            Batch b;
            synchronized (this) {
                b = batch;
                setBatch(null);
            }
            if (b != null) {
                b.close(); // a call that read it before the reset admits nothing from it after
            }
        }

        /** (Holding the lock.) Gone from the hot keys: later calls count from 0 again. */
        private void leave() {
            gone = true;
            ConcurrentHashMap<String, Hot> ofPolicy = hot.get(policy.name());
            if (ofPolicy != null && ofPolicy.remove(key, this)) {
                hotCount.decrementAndGet();
            }
        }

        private void giveBack(Batch b) {
            if (b == null) {
                return;
            }
            int from = b.close();
            int to = b.taken.permits();
            if (from > to) {
                return;
            }
            try {
                ahead.giveBack(policy, key, b.taken.takenAtMicros(), from, to).whenComplete((n, e) -> {
                    if (n != null) {
                        givenBack.add(n);
                    }
                });
            } catch (RuntimeException e) {
                // the permits stay counted until their windows pass: fewer admitted, never more
            }
        }
    }
}
