package dev.slidegate.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;

import dev.slidegate.api.Decision;
import dev.slidegate.api.LimitState;
import dev.slidegate.api.Policy;
import dev.slidegate.core.DecisionStore;

/**
 * Answers a refusal again without asking the shared store, for as long as the store said it holds.
 *
 * <p>
 * When refusals charge nothing, a refusal is monotone for every strategy: between a refusal and the
 * instant its retry-after names, other instances can only take permits, never give one back (only
 * time and an operator's reset free a permit), so every call of the same cost, from any instance, is
 * refused too. Each instance therefore remembers, per (policy, caller key, cost), "refused until",
 * anchored on the instant the request was <em>sent</em> (the store decided later, so the local
 * deadline is never later than the true one), and answers from it until then: the same refusal, its
 * retry-after and each limit's reset counting down.
 *
 * <p>
 * Not for {@code count-rejected} policies (their refusals must be charged). A refusal of a policy counting calls in
 * flight is not monotone (any call's end frees a slot): it is remembered for {@link #IN_FLIGHT_MEMORY_NANOS} only, or
 * until a call of its key ends here. A reset, here or on any
 * instance ({@link #forgetAll}), drops every remembered refusal, and a refusal that was in flight
 * during a reset is not remembered. Memory is bounded: at most {@code maxEntries} refusals, each
 * dropped when it expires.
 */
public final class RefusalCache extends dev.slidegate.core.ForwardingStore {

    /** One remembered refusal: the store's answer, when the request was sent, and until when it holds. */
    private record Entry(Decision refusal, long sentNanos, long untilNanos) {

        /** The refusal as it stands at {@code now}: retry-after and resets counted down. */
        Decision at(long now) {
            long elapsed = (now - sentNanos) / 1000;
            List<LimitState> states = new ArrayList<>(refusal.states().size());
            for (LimitState s : refusal.states()) {
                states.add(new LimitState(s.limit(), s.remaining(), Math.max(0, s.resetMicros() - elapsed)));
            }
            return new Decision(refusal.policy(), false, refusal.trippedIndex(), Math.max(1, (untilNanos - now) / 1000),
                    refusal.atMicros() + elapsed, states);
        }
    }

    /**
     * How long a refusal of a policy counting calls in flight is remembered: a flood of callers of a full key costs the
     * store at most one call per key and 20 ms per instance (with every refusal a script call, 48 hammering clients
     * starved Redis on 2 cores into a false outage), while a slot that frees elsewhere is seen here at most 20 ms late
     * (at 50 ms, 2 of 2 slots ran only 88 to 92% of the time in {@code InFlightFleetIT}).
     */
    static final long IN_FLIGHT_MEMORY_NANOS = 20_000_000L;

    private final Cache<String, Entry> refusals;
    private final LongSupplier nanoTime;
    /** Counts resets: a refusal asked before the latest reset is not remembered. */
    private final AtomicLong resets = new AtomicLong();
    private final LongAdder answered = new LongAdder();

    /**
     * @param store the shared store whose refusals are remembered
     * @param maxEntries the most refusals remembered at once
     * @param nanoTime the monotonic clock ({@code System::nanoTime}; tests set their own)
     */
    public RefusalCache(DecisionStore store, int maxEntries, LongSupplier nanoTime) {
        super(store);
        this.nanoTime = nanoTime;
        this.refusals = Caffeine.newBuilder().maximumSize(maxEntries).ticker(nanoTime::getAsLong)
                .expireAfter(new Expiry<String, Entry>() {
                    @Override
                    public long expireAfterCreate(String key, Entry e, long currentTime) {
                        return Math.max(0, e.untilNanos() - currentTime);
                    }

                    @Override
                    public long expireAfterUpdate(String key, Entry e, long currentTime, long currentDuration) {
                        return expireAfterCreate(key, e, currentTime);
                    }

                    @Override
                    public long expireAfterRead(String key, Entry e, long currentTime, long currentDuration) {
                        return currentDuration;
                    }
                }).executor(Runnable::run).build();
    }

    @Override
    public CompletionStage<Long> hold(Policy policy, String key, long forMicros) {
        return delegate.hold(policy, key, forMicros); // a refusal remembered meanwhile only answers a shorter wait
    }

    /**
     * A refund may leave room sooner than a refusal remembered here says: the key's refusals of one permit and of the
     * settled call's estimate (the costs its calls are asked at) are forgotten. Another cost's stays until its
     * retry-after, refusing a little longer, never admitting more.
     */
    @Override
    public CompletionStage<Long> settle(Policy policy, String key, long admittedAtMicros, int estimate, long actual) {
        if (actual < estimate) {
            refusals.invalidate(id(policy, 1, key));
            refusals.invalidate(id(policy, estimate, key));
        }
        return delegate.settle(policy, key, admittedAtMicros, estimate, actual);
    }

    @Override
    public CompletionStage<Void> refund(Policy policy, String key, long atMicros, int cost) {
        refusals.invalidate(id(policy, 1, key)); // permits come back: this instance sees them at once
        refusals.invalidate(id(policy, cost, key));
        return delegate.refund(policy, key, atMicros, cost);
    }

    @Override
    public CompletionStage<java.util.List<Long>> leave(Policy policy, String key, java.util.List<Long> leases) {
        refusals.invalidate(id(policy, 1, key)); // a slot frees: this instance sees it at once
        return delegate.leave(policy, key, leases);
    }

    @Override
    public CompletionStage<Decision> acquire(Policy policy, String key, int cost, long maxWaitMicros) {
        if (policy.countRejected()) {
            return delegate.acquire(policy, key, cost, maxWaitMicros);
        }
        return remembering(policy, key, cost, maxWaitMicros, false);
    }

    /**
     * A call of several policies: refused from memory when one of its policies has a refusal remembered for its key that
     * even its wait ends before; else the store decides all in one step. Its refusals are not remembered: one may say how
     * long the call could not wait for another policy's room, not when this key has room.
     */
    @Override
    public CompletionStage<java.util.List<Decision>> acquireAll(java.util.List<Asked> asks) {
        long now = nanoTime.getAsLong();
        for (Asked a : asks) {
            if (a.policy().countRejected()) {
                continue;
            }
            Entry e = remembered(id(a.policy(), a.cost(), a.key()), a.policy(), a.maxWaitMicros(), now);
            if (e != null) {
                return CompletableFuture.completedFuture(java.util.List.of(e.at(now)));
            }
        }
        return delegate.acquireAll(asks);
    }

    /**
     * A slot of calls in flight: one frees when any call ends, so "full" is remembered only briefly (refusing a little
     * more, never admitting more), or until a call of the key ends here ({@link #leave}).
     */
    @Override
    public CompletionStage<Decision> enter(Policy policy, String key, long maxWaitMicros) {
        return remembering(policy, key, 1, maxWaitMicros, true);
    }

    /**
     * A refusal remembered for {@code key} answered from memory, else the store's decision (a slot's, or permits'),
     * remembered when it refuses: a slot's for {@link #IN_FLIGHT_MEMORY_NANOS}, permits' until their retry-after.
     */
    private CompletionStage<Decision> remembering(Policy policy, String key, int cost, long maxWaitMicros, boolean slot) {
        String id = id(policy, cost, key);
        long now = nanoTime.getAsLong();
        Entry e = remembered(id, policy, maxWaitMicros, now);
        if (e != null) {
            return CompletableFuture.completedFuture(e.at(now));
        }
        long resetsBefore = resets.get();
        CompletionStage<Decision> asked = slot ? delegate.enter(policy, key, maxWaitMicros)
                : delegate.acquire(policy, key, cost, maxWaitMicros);
        return asked.thenApply(d -> {
            if (!d.allowed() && !d.fallback() && d.retryAfterMicros() > 0 && resets.get() == resetsBefore) {
                long until = now + (slot ? IN_FLIGHT_MEMORY_NANOS : TimeUnit.MICROSECONDS.toNanos(d.retryAfterMicros()));
                refusals.put(id, new Entry(d, now, until));
            }
            return d;
        });
    }

    /**
     * The refusal remembered under {@code id} that answers a call of {@code policy} now (counted as answered here), or
     * {@code null}: a call that may wait is refused from memory only when even its wait ends before the refusal does.
     */
    private Entry remembered(String id, Policy policy, long maxWaitMicros, long now) {
        Entry e = refusals.getIfPresent(id);
        if (e != null && e.untilNanos() - now > TimeUnit.MICROSECONDS.toNanos(maxWaitMicros)
                && (e.refusal().policy() == policy || e.refusal().policy().equals(policy))) {
            answered.increment();
            return e;
        }
        return null;
    }

    /** What a refusal is remembered under: the policy, the cost and the caller's key. */
    private static String id(Policy policy, int cost, String key) {
        return policy.name() + '\u0000' + cost + '\u0000' + key;
    }

    /**
     * Drops every remembered refusal: a key was reset here (told before and after the store forgets it,
     * see {@link dev.slidegate.core.ResetHooks}) or on another instance.
     */
    public void forgetAll() {
        resets.incrementAndGet();
        refusals.invalidateAll();
    }

    /** Refusals answered here without asking the store, since start. */
    public long answeredLocally() {
        return answered.sum();
    }

    /** Refusals remembered now (for tests and the admin view). */
    public long size() {
        refusals.cleanUp();
        return refusals.estimatedSize();
    }
}
