package dev.slidegate.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

import jakarta.inject.Inject;
import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import dev.slidegate.api.Decision;
import dev.slidegate.api.FailMode;
import dev.slidegate.api.Policy;
import dev.slidegate.core.DecisionStore;

/**
 * The leases of the calls in flight on this instance (policies with {@code max-in-flight}): taken by the store when a
 * call is admitted, renewed while the call runs, ended when it is done. Renewals go out once per (policy, key) and
 * third of its lease time, whatever the number of its calls here, from a timer that runs only while a call is in flight.
 * Leases found gone (this instance paused, or could not reach the store, for longer than the lease time; or the key was
 * reset), whether by a renewal or by the end of their calls, are said in one log line per policy and tick: those calls
 * ran while other instances could start as many.
 */
@Singleton
public class Leases {

    private static final Logger LOG = Logger.getLogger("dev.slidegate");

    /** How often the timer looks for leases due for renewal, while any is held (a lease lives 1 s at least). */
    static final long TICK_NANOS = 250_000_000L;

    /** What one (policy, key) holds on this instance. */
    private static final class Group {
        final String id;
        final Policy policy;
        final String key;
        final Set<Long> names = ConcurrentHashMap.newKeySet();
        /** When the store last confirmed these leases (monotonic), or they were taken. */
        volatile long renewedNanos;
        final AtomicBoolean renewing = new AtomicBoolean();
        /** Leases of calls that ended in this turn of the event loop, ended in the store together after it; guarded by this. */
        List<Long> ending;

        Group(String id, Policy policy, String key, long now) {
            this.id = id;
            this.policy = policy;
            this.key = key;
            this.renewedNanos = now;
        }
    }

    /** The leases one call holds, ended exactly once. */
    public final class Held {
        private final List<Group> groups;
        private final List<Long> names;
        private final AtomicBoolean ended = new AtomicBoolean();

        private Held(List<Group> groups, List<Long> names) {
            this.groups = groups;
            this.names = names;
        }

        /** Ends the call's leases: their slots are free for the key's next call, here or on any instance. Again: nothing. */
        public void end() {
            if (ended.compareAndSet(false, true)) {
                for (int i = 0; i < groups.size(); i++) {
                    release(groups.get(i), names.get(i));
                }
            }
        }

        /** Whether {@link #end} ran. */
        public boolean ended() {
            return ended.get();
        }
    }

    private final dev.slidegate.core.InFlightSlots store;
    /** Where calls that end in one event-loop turn end their leases together. */
    private final Threads threads;
    private final dev.slidegate.metrics.InFlightStats stats;
    private final LongSupplier nanoTime;
    private final Waits.Timer timer;
    private final ConcurrentHashMap<String, Group> groups = new ConcurrentHashMap<>();
    private final AtomicBoolean ticking = new AtomicBoolean();
    private final AtomicInteger held = new AtomicInteger();
    private volatile long lastTickNanos;
    /** The last time the timer ran late by more than a tick (this instance stalled): how late, and when it found out. */
    private volatile long stallNanos;
    private volatile long stallSeenNanos;
    /** Says leases found gone, one line per policy and tick. */
    private final LostLeases lostLeases;

    @Inject
    Leases(DecisionStore store, dev.slidegate.metrics.InFlightStats stats, Threads threads, dev.slidegate.core.Clock clock) {
        this(store, stats, clock::nanoTime, threads.timer(), threads);
    }

    /** Leases whose calls each end at once, off any event loop ({@link Threads#INLINE}). */
    public Leases(dev.slidegate.core.InFlightSlots store, dev.slidegate.metrics.InFlightStats stats, LongSupplier nanoTime,
            Waits.Timer timer) {
        this(store, stats, nanoTime, timer, Threads.INLINE);
    }

    /**
     * @param nanoTime the monotonic clock renewals are timed on
     * @param timer what runs the next look for leases due (a Vert.x timer)
     */
    Leases(dev.slidegate.core.InFlightSlots store, dev.slidegate.metrics.InFlightStats stats, LongSupplier nanoTime,
            Waits.Timer timer,
            Threads threads) {
        this.threads = threads;
        this.lostLeases = new LostLeases(stats, timer, TICK_NANOS);
        this.store = store;
        this.stats = stats;
        this.nanoTime = nanoTime;
        this.timer = timer;
    }

    /** Calls in flight on this instance, over every policy and key. */
    public int inFlight() {
        return held.get();
    }

    /**
     * Takes charge of the leases an outcome's decisions took: an admitted call gets them (to end when it is done); any
     * other outcome ends them at once, so a call refused by one policy holds no slot of another.
     *
     * @param keys the key of each decision, in the outcome's order
     */
    Outcome settle(Outcome o, String[] keys) {
        List<Decision> made = o.decisions();
        List<Group> taken = null;
        List<Long> names = null;
        for (int j = 0; j < made.size(); j++) {
            Decision d = made.get(j);
            if (!leased(d)) {
                continue;
            }
            if (taken == null) {
                taken = new ArrayList<>(2);
                names = new ArrayList<>(2);
            }
            taken.add(hold(d.policy(), keys[j], d.atMicros()));
            names.add(d.atMicros());
        }
        if (taken == null) {
            return o;
        }
        Held h = new Held(taken, names);
        if (o instanceof Outcome.Admitted a) {
            return a.withLeases(h);
        }
        h.end();
        return o;
    }

    /** Whether {@code d} took a lease somewhere: an admission of a policy counting calls in flight, not one fail-open. */
    private static boolean leased(Decision d) {
        return d.allowed() && d.policy().inFlight() && d.atMicros() != dev.slidegate.core.Overrides.UNLEASED
                && !(d.fallback() && d.policy().failMode() == FailMode.OPEN);
    }

    private Group hold(Policy policy, String key, long name) {
        long now = nanoTime.getAsLong();
        Group g = groups.compute(policy.name() + '\u0000' + key, (id, old) -> {
            Group group = old == null ? new Group(id, policy, key, now) : old;
            group.names.add(name);
            return group;
        });
        held.incrementAndGet();
        stats.entered(policy.name());
        if (ticking.compareAndSet(false, true)) {
            lastTickNanos = now;
            timer.schedule(TICK_NANOS, this::tick);
        }
        return g;
    }

    private void release(Group g, long name) {
        if (!g.names.remove(name)) {
            return; // lost meanwhile, and said so
        }
        held.decrementAndGet();
        stats.left(g.policy.name());
        forgetIfEmpty(g);
        if (!threads.onEventLoop()) {
            leave(g, List.of(name));
            return;
        }
        // on an event loop: the calls of this key that end in the same turn (responses written together) end in one
        // store call, sent once the turn is over
        boolean first;
        synchronized (g) {
            first = g.ending == null;
            if (first) {
                g.ending = new ArrayList<>(2);
            }
            g.ending.add(name);
        }
        if (first && !threads.afterThisTurn(() -> endTogether(g))) {
            endTogether(g);
        }
    }

    /** Ends the leases of {@code g} whose calls ended since the last time, 1 000 per store call. */
    private void endTogether(Group g) {
        List<Long> names;
        synchronized (g) {
            names = g.ending;
            g.ending = null;
        }
        for (int from = 0; from < names.size(); from += 1_000) {
            leave(g, names.subList(from, Math.min(names.size(), from + 1_000)));
        }
    }

    private void leave(Group g, List<Long> names) {
        try {
            store.leave(g.policy, g.key, List.copyOf(names)).whenComplete((lost, error) -> {
                if (error == null && !lost.isEmpty()) {
                    // these calls ended before a renewal found their leases gone (the instance ran again after a pause
                    // and the calls, due meanwhile, ended first): said all the same
                    lostLeases.lost(g.policy, lost.size(), stall(g));
                } else if (error != null) {
                    LOG.debugf("Slidegate: leases of policy '%s' could not be ended (%s); they expire after %s",
                            g.policy.name(),
                            error, dev.slidegate.api.Limit.durationText(g.policy.leaseMicros() / 1000));
                }
            });
        } catch (RuntimeException e) {
            LOG.debugf("Slidegate: leases of policy '%s' could not be ended (%s)", g.policy.name(), e);
        }
    }

    /** Drops a group whose calls all ended or lost their leases (one that took a lease meanwhile stays). */
    private void forgetIfEmpty(Group g) {
        groups.computeIfPresent(g.id, (id, group) -> group.names.isEmpty() ? null : group);
    }

    /** Renews what is due, then looks again after a tick while anything is held. */
    private void tick() {
        long now = nanoTime.getAsLong();
        long gap = now - lastTickNanos;
        if (gap > 2 * TICK_NANOS) {
            stallNanos = gap;
            stallSeenNanos = now;
        }
        lastTickNanos = now;
        for (Group g : groups.values()) {
            if (now - g.renewedNanos >= g.policy.leaseMicros() * 1000 / 3 && !g.names.isEmpty()
                    && g.renewing.compareAndSet(false, true)) {
                renew(g, now);
            }
        }
        if (groups.isEmpty()) {
            ticking.set(false);
            if (groups.isEmpty() || !ticking.compareAndSet(false, true)) {
                return; // (a lease taken meanwhile started the timer itself)
            }
        }
        timer.schedule(TICK_NANOS, this::tick);
    }

    /**
     * How long this instance stalled since {@code g}'s leases were last renewed, as far as its timer can tell: a stall not
     * over (the timer has not run since it should have), or the last the timer found since that renewal.
     */
    private long stall(Group g) {
        long stall = nanoTime.getAsLong() - lastTickNanos;
        return stallSeenNanos - g.renewedNanos >= 0 ? Math.max(stall, stallNanos) : stall;
    }

    private void renew(Group g, long now) {
        List<Long> names = List.copyOf(g.names);
        java.util.concurrent.CompletionStage<List<Long>> renewed;
        try {
            renewed = store.renew(g.policy, g.key, names);
        } catch (RuntimeException e) {
            renewed = java.util.concurrent.CompletableFuture.failedFuture(e);
        }
        renewed.whenComplete((lost, error) -> {
            try {
                if (error != null) { // asked again next tick; a lease outlives a store that is away for less than its time
                    return;
                }
                long stall = stall(g);
                g.renewedNanos = now;
                int gone = 0;
                for (Long name : lost) {
                    if (g.names.remove(name)) {
                        held.decrementAndGet();
                        stats.left(g.policy.name());
                        gone++;
                    }
                }
                if (gone > 0) {
                    forgetIfEmpty(g);
                    lostLeases.lost(g.policy, gone, stall);
                }
            } finally {
                g.renewing.set(false);
            }
        });
    }
}
