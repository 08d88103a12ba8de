package dev.slidegate.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Limit;
import dev.slidegate.api.LimitState;
import dev.slidegate.api.Policy;

/**
 * Waiting for a slot: a call under a policy of calls in flight with a max-wait, refused at once, is queued for the key
 * ({@link DecisionStore#queue}: one queue in arrival order for every instance that shares the store) and admitted when
 * a slot comes to its turn, or refused when its max-wait is over. No thread waits: each (policy, key) with calls
 * waiting here asks the store once per {@link #POLL_NANOS} for all of them together, and at once when a call of the
 * key ends on this instance (its slot is the next one's). Tickets lapse after {@link #LAPSE_MICROS} without a turn, so
 * an instance that dies holds no place in the queue for longer.
 *
 * <p>
 * Everything else (and every rate) goes to the store beneath unchanged. When the store cannot queue (it is down, or skipped
 * while it recovers), the waiting calls are decided by asking it once more without a wait: their fail mode decides.
 */
public final class SlotWaits extends ForwardingStore {

    /** How often a key with calls waiting on this instance asks for their turn: a slot freed elsewhere is this late. */
    public static final long POLL_NANOS = 50_000_000L;
    /** How long a ticket stays queued without being named again (ten turns missed). */
    public static final long LAPSE_MICROS = 500_000L;

    private final LongSupplier nanoTime;
    private final ScheduledThreadPoolExecutor timer;
    private final Map<Group.Id, Group> groups = new ConcurrentHashMap<>();

    public SlotWaits(DecisionStore delegate, LongSupplier nanoTime) {
        super(delegate);
        this.nanoTime = nanoTime;
        this.timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "slidegate-slot-waits");
            t.setDaemon(true);
            return t;
        });
        timer.setRemoveOnCancelPolicy(true);
        timer.setKeepAliveTime(10, TimeUnit.SECONDS); // the thread ends when no call has waited for 10 s
        timer.allowCoreThreadTimeOut(true);
    }

    /** One waiting call: its ticket once the store gave one (0 before), its deadline (nanoTime) and its answer. */
    private static final class Waiter {
        long ticket;
        final long deadlineNanos;
        final Decision refusal;
        final CompletableFuture<Decision> result = new CompletableFuture<>();

        Waiter(long deadlineNanos, Decision refusal) {
            this.deadlineNanos = deadlineNanos;
            this.refusal = refusal;
        }
    }

    /** The calls of one (policy, key) waiting on this instance, in arrival order; guarded by its monitor. */
    private static final class Group {
        record Id(String policy, String key) {
        }

        final Id id;
        final Policy policy;
        final String key;
        final List<Waiter> waiting = new ArrayList<>();
        /** A turn is being asked for; another is asked for once it is answered when {@link #again}. */
        boolean asking;
        /** No call waits any more: the group leaves the map, and a new call of the key makes a new one. */
        boolean retired;
        boolean again;
        java.util.concurrent.ScheduledFuture<?> next;

        Group(Id id, Policy policy, String key) {
            this.id = id;
            this.policy = policy;
            this.key = key;
        }
    }

    @Override
    public CompletionStage<Decision> enter(Policy policy, String key, long maxWaitMicros) {
        if (maxWaitMicros <= 0) {
            return delegate.enter(policy, key, 0);
        }
        DecisionStore.checkMaxWait(maxWaitMicros);
        long deadline = nanoTime.getAsLong() + maxWaitMicros * 1000;
        return delegate.enter(policy, key, 0).thenCompose(d -> {
            if (d.allowed() || d.fallback()) {
                return CompletableFuture.completedFuture(d);
            }
            Waiter w = new Waiter(deadline, d);
            // (the map's lock, then the group's: nothing takes them the other way round)
            Group g = groups.compute(new Group.Id(policy.name(), key), (id, old) -> {
                if (old != null) {
                    synchronized (old) {
                        if (!old.retired && old.policy.equals(policy)) {
                            old.waiting.add(w);
                            return old;
                        }
                    }
                }
                Group made = new Group(id, policy, key);
                made.waiting.add(w);
                return made;
            });
            ask(g);
            return w.result;
        });
    }

    /** Asks the store for the turn of {@code g}'s calls now, or once the turn being asked for is answered. */
    private void ask(Group g) {
        List<Waiter> named = null;
        List<Waiter> late;
        synchronized (g) {
            if (g.asking) {
                g.again = true;
                return;
            }
            if (g.next != null) {
                g.next.cancel(false);
                g.next = null;
            }
            late = late(g);
            if (g.waiting.isEmpty()) {
                g.retired = true;
            } else {
                named = List.copyOf(g.waiting.size() > 1_000 ? g.waiting.subList(0, 1_000) : g.waiting);
                g.asking = true;
                g.again = false;
            }
        }
        refuse(g, late);
        if (named == null) {
            groups.remove(g.id, g);
            return;
        }
        List<Long> tickets = new ArrayList<>(named.size());
        for (Waiter w : named) {
            tickets.add(w.ticket);
        }
        List<Waiter> asked = named;
        CompletionStage<Turn> turn;
        try {
            turn = delegate.queue(g.policy, g.key, tickets, LAPSE_MICROS);
        } catch (RuntimeException e) {
            turn = CompletableFuture.failedFuture(e);
        }
        turn.whenComplete((t, error) -> answered(g, asked, t, error));
    }

    private void answered(Group g, List<Waiter> named, Turn turn, Throwable error) {
        List<Runnable> after = new ArrayList<>();
        boolean again;
        synchronized (g) {
            g.asking = false;
            if (error != null) { // the store cannot queue: each is decided without a wait, by its fail mode
                for (Waiter w : named) {
                    g.waiting.remove(w);
                    after.add(() -> decideNow(g, w));
                }
            } else {
                for (int i = 0; i < named.size(); i++) {
                    Waiter w = named.get(i);
                    w.ticket = turn.tickets().get(i);
                    long lease = turn.leases().get(i);
                    if (lease == 0) {
                        continue;
                    }
                    g.waiting.remove(w);
                    Decision admitted = admitted(g.policy, lease, turn.remaining());
                    after.add(() -> {
                        if (!w.result.complete(admitted)) { // its wait ended meanwhile: the slot is not kept
                            delegate.leave(g.policy, g.key, List.of(lease));
                        }
                    });
                }
            }
            again = g.again;
            if (!again && !g.waiting.isEmpty()) {
                long now = nanoTime.getAsLong();
                long soonest = g.waiting.stream().mapToLong(w -> w.deadlineNanos).min().orElse(now);
                long in = Math.max(0, Math.min(POLL_NANOS, soonest - now));
                g.next = timer.schedule(() -> ask(g), in, TimeUnit.NANOSECONDS);
            }
        }
        after.forEach(Runnable::run);
        if (again) {
            ask(g);
            return;
        }
        boolean retired;
        synchronized (g) {
            retired = g.retired = g.retired || (g.waiting.isEmpty() && !g.asking);
        }
        if (retired) {
            groups.remove(g.id, g);
        }
    }

    /** Takes the calls of {@code g} whose max-wait is over out of it; under its monitor. */
    private List<Waiter> late(Group g) {
        long now = nanoTime.getAsLong();
        List<Waiter> late = List.of();
        for (java.util.Iterator<Waiter> it = g.waiting.iterator(); it.hasNext();) {
            Waiter w = it.next();
            if (now - w.deadlineNanos >= 0) {
                it.remove();
                late = late.isEmpty() ? new ArrayList<>() : late;
                late.add(w);
            }
        }
        return late;
    }

    /** Refuses calls whose max-wait is over, taking their tickets out of the queue (else they lapse). */
    private void refuse(Group g, List<Waiter> late) {
        if (late.isEmpty()) {
            return;
        }
        List<Long> gone = new ArrayList<>();
        for (Waiter w : late) {
            if (w.ticket != 0) {
                gone.add(w.ticket);
            }
            w.result.complete(w.refusal);
        }
        if (!gone.isEmpty()) {
            try {
                delegate.unqueue(g.policy, g.key, gone);
            } catch (RuntimeException e) {
                // they lapse
            }
        }
    }

    private void decideNow(Group g, Waiter w) {
        CompletionStage<Decision> now;
        try {
            now = delegate.enter(g.policy, g.key, 0);
        } catch (RuntimeException e) {
            now = CompletableFuture.failedFuture(e);
        }
        now.whenComplete((d, error) -> {
            if (error != null) {
                w.result.completeExceptionally(error);
            } else if (!w.result.complete(d) && d.allowed() && !d.fallback()) {
                delegate.leave(g.policy, g.key, List.of(d.atMicros()));
            }
        });
    }

    private static Decision admitted(Policy policy, long lease, int remaining) {
        Limit limit = policy.limits().get(0);
        long reset = remaining == 0 ? InFlightSlots.inFlightRetryMicros(policy) : 0;
        return new Decision(policy, true, -1, 0, lease, List.of(new LimitState(limit, remaining, reset)));
    }

    /** The calls of a key waiting here: how many (for tests and the admin). */
    public int waiting(Policy policy, String key) {
        Group g = groups.get(new Group.Id(policy.name(), key));
        if (g == null) {
            return 0;
        }
        synchronized (g) {
            return g.waiting.size();
        }
    }

    /**
     * The calls of a key waiting here that the store has queued (they hold a ticket, so a call that arrives now queues
     * behind them on every instance): what a test observes instead of sleeping.
     */
    public int ticketed(Policy policy, String key) {
        Group g = groups.get(new Group.Id(policy.name(), key));
        if (g == null) {
            return 0;
        }
        synchronized (g) {
            return (int) g.waiting.stream().filter(w -> w.ticket != 0).count();
        }
    }

    /** The calls waiting here for a slot, every key's together: what a test observes instead of sleeping. */
    public int waiting() {
        int n = 0;
        for (Group g : groups.values()) {
            synchronized (g) {
                n += g.waiting.size();
            }
        }
        return n;
    }

    /** Ends the leases; a slot freed here goes to the next call of the key waiting here at once. */
    @Override
    public CompletionStage<List<Long>> leave(Policy policy, String key, List<Long> leases) {
        CompletionStage<List<Long>> left = delegate.leave(policy, key, leases);
        Group g = groups.get(new Group.Id(policy.name(), key));
        if (g != null) {
            left.whenComplete((lost, error) -> ask(g));
        }
        return left;
    }
}
