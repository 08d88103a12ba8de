package dev.slidegate.interceptor;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import dev.slidegate.api.Decision;
import dev.slidegate.api.MissingRateLimitKeyException;
import dev.slidegate.api.PlanResolver;
import dev.slidegate.api.Policy;
import dev.slidegate.api.RateLimitExceededException;
import dev.slidegate.api.StoreUnavailableException;
import dev.slidegate.core.DecisionStore;
import dev.slidegate.core.Overrides;
import dev.slidegate.metrics.WaitStats;
import io.quarkus.runtime.BlockingOperationControl;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.ext.web.RoutingContext;

/**
 * Decides one call against its policies: the single pipeline behind every entry point (the
 * interceptor, the request filter, the path limiter and the {@link dev.slidegate.api.RateLimiter}),
 * which only adapt its {@link Outcome} to their callers. Nothing here speaks HTTP: the request, when
 * there is one, is only where keys and plans are read.
 *
 * <p>
 * For one call it resolves every policy's key and plan first (so a missing key charges nothing), finds
 * the override in force, then acquires the policies in order; the first refusal answers and later
 * policies are not asked. Each decision is counted and logged ({@link Admission}), and every failure
 * becomes an outcome exactly here: a missing key, an undecided store, anything else (a resolver's
 * bug), logged once. The outcome never fails.
 */
@Singleton
class Decider {

    private static final Logger LOG = Logger.getLogger("dev.slidegate");

    /**
     * One call on its way through its policies: the decisions made so far (the i-th that of the i-th ask), and for a
     * call that waits, its places in the waiting room and the instant (monotonic) its last permit was reserved for.
     */
    private static final class Pending {
        /** When the call was first asked (monotonic), where one of its policies may wait; else 0, never read. */
        final long startNanos;
        List<Decision> made = List.of();
        List<Waits.Place> places = List.of();
        /** Held until (monotonic): the latest permit's wait, counted from its answer's arrival (never early). */
        long deadlineNanos;
        /**
         * The earliest instant that permit can be (its wait counted from when it was asked): lateness is judged from
         * here, so a store's answer that arrived late cannot hide it.
         */
        long earliestNanos;
        boolean holds;
        /** Decided ahead of the thread that will run it ({@link #decideAhead}). */
        boolean ahead;
        /**
         * When this round's first store call of a policy that may wait was sent (monotonic), 0 before: the earliest
         * instant a permit admitted at once can be. A round is the first asking, or a deciding again.
         */
        long askedNanos;

        Pending(long startNanos) {
            this.startNanos = startNanos;
        }

        void leave() {
            places.forEach(Waits.Place::leave);
        }
    }

    /**
     * An admission that the code running its call takes up some time after it was made: a call released from its hold,
     * or one admitted at once before its request was dispatched ({@link #decideAhead}). It carries the earliest instant
     * its permits can be (monotonic) and what deciding it again takes, should that code take it up too late
     * ({@link #late}).
     */
    static final class Released {
        private final Ask[] asks;
        private final long startNanos;
        private final long earliestNanos;
        private final RoutingContext rc;

        private Released(Ask[] asks, Pending call, RoutingContext rc) {
            this.asks = asks;
            this.startNanos = call.startNanos;
            this.earliestNanos = call.earliestNanos;
            this.rc = rc;
        }
    }

    private final CallerKeys keys;
    private final DecisionStore store;
    private final PlanResolver plans;
    private final Admission admission;
    private final Overrides overrides;
    private final Waits waits;
    private final WaitStats waitStats;
    private final Upstreams upstreams;
    /** Where every call's leases and settlements end, however the call ends. */
    private final CallEnds ends;

    Decider(CallerKeys keys, DecisionStore store, PlanResolver plans, Admission admission, Overrides overrides, Waits waits,
            WaitStats waitStats, Upstreams upstreams, Leases leases) {
        this.ends = new CallEnds(leases, new Settlements(store, waits::nanoTime));
        this.waitStats = waitStats;
        this.upstreams = upstreams;
        this.keys = keys;
        this.store = store;
        this.plans = plans;
        this.admission = admission;
        this.overrides = overrides;
        this.waits = waits;
    }

    /**
     * Decides a call of a method with {@code policies}, never blocking. The outcome completes on the
     * caller's Vert.x context (inline when the store answers there), so what follows sees its request.
     *
     * @param args the call's arguments (empty for a request decided before dispatch)
     * @param rc the HTTP request, or {@code null} outside HTTP
     */
    CompletionStage<Outcome> decide(List<MethodPolicy> policies, Object[] args, RoutingContext rc) {
        return decide(policies, args, rc, resumeOn(Vertx.currentContext()), false);
    }

    /**
     * {@link #decide(List, Object[], RoutingContext)} for a request decided before it is dispatched to the thread that runs
     * its endpoint (a request filter, the router): where one of its policies may wait, a call admitted at once carries the
     * instant it was asked ({@link Outcome.Admitted#released}), as a held call carries its permit's, so that the thread
     * that takes it up later than the late tolerance decides it again ({@link #late}) instead of running it beside the
     * calls admitted after it. The clock is read only for such calls.
     */
    CompletionStage<Outcome> decideAhead(List<MethodPolicy> policies, Object[] args, RoutingContext rc) {
        return decide(policies, args, rc, resumeOn(Vertx.currentContext()), true);
    }

    /**
     * Decides a call whose key the code gives ({@link dev.slidegate.api.RateLimiter}): the same plans
     * (read from {@code rc} when the call happens during a request), overrides, counting and logging as
     * every other entry point; completes wherever the store answers.
     */
    CompletionStage<Outcome> decide(MethodPolicy mp, String key, int cost, RoutingContext rc) {
        return decide(mp, key, cost, -1, rc, false);
    }

    /**
     * As {@link #decide(MethodPolicy, String, int, RoutingContext)}, waiting up to {@code maxWait} microseconds for the
     * permit ({@code -1}: the policy's {@code max-wait}); the outcome completes when the call may proceed, on the
     * caller's Vert.x context with {@code onCallersContext} (never for a caller that blocks until it completes: its
     * context may be the very thread that waits), else wherever the store or the timer answers.
     */
    CompletionStage<Outcome> decide(MethodPolicy mp, String key, int cost, long maxWait, RoutingContext rc,
            boolean onCallersContext) {
        Ask ask;
        try {
            Policy policy = mp.policyFor(plans, new Object[] { key }, rc);
            ask = ask(mp, policy, key, cost, maxWait < 0 ? policy.maxWaitMicros() : maxWait);
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(failure(e, mp, List.of()));
        }
        CompletableFuture<Outcome> outcome = new CompletableFuture<>();
        Ask[] asks = { ask };
        acquire(asks, 0, onCallersContext ? resumeOn(Vertx.currentContext()) : Runnable::run, pending(asks), outcome, rc);
        return ends.attach(outcome, asks, rc);
    }

    /**
     * Decides and waits for the outcome, for a method that returns a plain value. Waiting is only
     * allowed off the event loop; an in-process decision never waits.
     *
     * @throws IllegalStateException on an event loop when the store has not answered at once
     */
    Outcome decideAndWait(List<MethodPolicy> policies, Object[] args, RoutingContext rc) {
        // the waiting thread is the caller: continue on whichever thread the store answers
        CompletableFuture<Outcome> outcome = decide(policies, args, rc, Runnable::run, false).toCompletableFuture();
        if (!outcome.isDone() && !BlockingOperationControl.isBlockingAllowed()) {
            throw new IllegalStateException(policies.get(0).where()
                    + " returns a plain value but runs on an I/O thread, where a "
                    + "remote rate-limit decision (or a permit, for a policy with max-wait) cannot be awaited: return Uni or "
                    + "CompletionStage, or annotate it @Blocking");
        }
        return startingNow(outcome.join());
    }

    /**
     * Whether {@code o} admits a call that the code about to run it takes up later than the late tolerance after its
     * permit's instant: a held call (the hold was checked when it was released), or one admitted at once before its request
     * was dispatched ({@link #decideAhead}). The thread that runs the call may come later (a worker thread starved of CPU,
     * a busy event loop, a cold first call): such a call must not run on that permit, next to the calls admitted after it.
     * Its runner decides it again instead ({@link #again}, {@link #startingNow}).
     */
    boolean late(Outcome o) {
        return o instanceof Outcome.Admitted a && a.released() != null && waits.late(a.released().earliestNanos);
    }

    /**
     * Decides again, as a new arrival, a held call whose runner took it up too late ({@link #late}): it does not run on
     * its first admission (its leases end, what it charged to settle comes back; its permits stay charged, as for a call
     * that woke late), and it may wait what is left of its max-wait. Completes on the caller's Vert.x context.
     */
    CompletionStage<Outcome> again(Outcome.Admitted a) {
        return again(a, resumeOn(Vertx.currentContext()), true);
    }

    /**
     * For a caller that runs the call on this very thread once this returns: {@code o}, or, while it admits a held call
     * taken up too late ({@link #late}), what deciding it again answers. It waits for a new permit only where this thread
     * may block; on an I/O thread the call is decided again without waiting.
     *
     * @throws IllegalStateException on an I/O thread when the store has not answered at once
     */
    Outcome startingNow(Outcome o) {
        return late(o) ? startingNow(o, BlockingOperationControl.isBlockingAllowed()) : o;
    }

    /** {@link #startingNow(Outcome)} on a thread that may block ({@code mayWait}), or not. */
    Outcome startingNow(Outcome o, boolean mayWait) {
        while (late(o)) {
            Outcome.Admitted a = (Outcome.Admitted) o;
            CompletableFuture<Outcome> next = again(a, Runnable::run, mayWait).toCompletableFuture();
            if (!next.isDone() && !mayWait) {
                next.thenAccept(unused -> { // nobody runs it: its leases end, what it charged to settle comes back
                    if (unused instanceof Outcome.Admitted admitted) {
                        admitted.notRun();
                    }
                });
                throw new IllegalStateException(a.released().asks[0].mp().where()
                        + " was taken up too late for its permit on an I/O thread, where a remote rate-limit decision cannot "
                        + "be awaited: return Uni or CompletionStage, or annotate it @Blocking");
            }
            o = next.join();
        }
        return o;
    }

    private CompletionStage<Outcome> again(Outcome.Admitted a, Executor resume, boolean mayWait) {
        Released h = a.released();
        a.notRun();
        long waitedMicros = (waits.nanoTime() - h.startNanos) / 1000;
        List<Decision> made = a.decisions();
        for (int j = 0; j < made.size(); j++) {
            if (mayWait(h.asks[j])) { // released, or admitted at once ahead
                waitStats.startedLate(made.get(j).policy().name());
            }
        }
        admission.wokeLate(made);
        Ask[] asks = anew(h.asks, waitedMicros, mayWait);
        CompletableFuture<Outcome> outcome = new CompletableFuture<>();
        acquire(asks, 0, resume, new Pending(h.startNanos), outcome, h.rc);
        return ends.attach(outcome, asks, h.rc);
    }

    private CompletionStage<Outcome> decide(List<MethodPolicy> policies, Object[] args, RoutingContext rc, Executor resume,
            boolean ahead) {
        Ask[] asks = new Ask[policies.size()];
        try {
            for (int i = 0; i < asks.length; i++) { // keys and plans are read now, on the caller's thread, where the request is
                MethodPolicy mp = policies.get(i);
                Policy policy = mp.policyFor(plans, args, rc);
                asks[i] = ask(mp, policy, keys.resolve(mp, args, rc), mp.costOf(args, rc), policy.maxWaitMicros());
            }
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(failure(e, policies.get(0), List.of()));
        }
        CompletableFuture<Outcome> outcome = new CompletableFuture<>();
        Pending call = pending(asks);
        call.ahead = ahead;
        acquire(asks, 0, resume, call, outcome, rc);
        return ends.attach(outcome, asks, rc);
    }

    /** A call starting now: the monotonic clock is read only when one of its policies may wait. */
    private Pending pending(Ask[] asks) {
        for (Ask a : asks) {
            if (a.maxWait() > 0) {
                return new Pending(waits.nanoTime());
            }
        }
        return new Pending(0);
    }

    /**
     * One policy's part in a call, with the override in force for its key (none looked up when none is loaded); an
     * outgoing call is decided under what its upstream taught ({@link Upstreams#paced}).
     */
    private Ask ask(MethodPolicy mp, Policy policy, String key, int cost, long maxWait) {
        Policy decided = mp.outgoing() ? upstreams.paced(policy, key) : policy;
        return new Ask(mp, decided, key, cost, overrides.isEmpty() ? null : overrides.find(mp.name(), decided, key), maxWait,
                policy);
    }

    /**
     * Asks policy {@code i}, then the next. A policy whose call may wait takes a place in the waiting room first (none
     * left: it is asked without a wait, and a refusal it could have waited out says the room was full); an admission
     * for a later instant pushes the call's deadline there. Once every policy admitted, a call with a deadline is held
     * until it, then proceeds.
     */
    private void acquire(Ask[] asks, int i, Executor resume, Pending call, CompletableFuture<Outcome> outcome,
            RoutingContext rc) {
        if (i == asks.length) {
            admitted(asks, resume, call, outcome, rc);
            return;
        }
        Ask a = asks[i];
        if (a.mp().outgoing()) { // what the fleet learned of its upstream, read at most once per refresh
            CompletionStage<Void> read;
            try {
                read = upstreams.refresh(a.configured(), a.key());
            } catch (RuntimeException e) {
                read = null; // decided under what this instance knows
            }
            if (read != null) {
                read.whenComplete((done, error) -> resume.execute(() -> {
                    try {
                        asks[i] = ask(a.mp(), a.configured(), a.key(), a.cost(), a.maxWait());
                    } catch (RuntimeException e) {
                        call.leave();
                        outcome.complete(failure(e, a.mp(), call.made));
                        return;
                    }
                    decideOne(asks, i, resume, call, outcome, rc);
                }));
                return;
            }
        }
        decideOne(asks, i, resume, call, outcome, rc);
    }

    /** Asks policy {@code i} of the call, then goes on with the next. */
    private void decideOne(Ask[] asks, int i, Executor resume, Pending call, CompletableFuture<Outcome> outcome,
            RoutingContext rc) {
        Ask a = asks[i];
        Waits.Place place = a.maxWait() > 0 ? waits.enter(a.policy().name(), a.key()) : null;
        boolean roomFull = a.maxWait() > 0 && place == null;
        long asked = place == null ? 0 : waits.nanoTime(); // only a call with a place may be held
        if (call.askedNanos == 0 && mayWaitForAPermit(a)) {
            call.askedNanos = asked;
        }
        CompletionStage<Decision> decision;
        try {
            decision = overrides.acquire(a.override(), store, a.policy(), a.key(), a.cost(), place == null ? 0 : a.maxWait());
        } catch (RuntimeException e) {
            leave(place);
            call.leave();
            outcome.complete(storeFailure(e, call.made));
            return;
        }
        decision.whenComplete((d, error) -> resume.execute(() -> {
            try {
                if (error != null) {
                    leave(place);
                    call.leave();
                    outcome.complete(storeFailure(error, call.made));
                    return;
                }
                call.made = with(call.made, d);
                boolean full = roomFull && !d.allowed() && d.retryAfterMicros() <= a.maxWait();
                if (admission.refuse(d, full)) {
                    leave(place);
                    call.leave();
                    if (full) {
                        waitStats.waitingRoomFull(d.policy().name());
                    }
                    if (a.mp().outgoing() && !full) {
                        refusedOutgoing(a, d, call, resume, outcome);
                        return;
                    }
                    outcome.complete(new Outcome.Refused(call.made, new RateLimitExceededException(d, a.cost(), full)));
                    return;
                }
                if (holds(d)) {
                    long until = waits.nanoTime() + d.waitMicros() * 1000; // from the answer's arrival
                    long earliest = asked + d.waitMicros() * 1000; // the store decided after it was asked
                    call.earliestNanos = call.holds && call.deadlineNanos >= until ? call.earliestNanos : earliest;
                    call.deadlineNanos = call.holds ? Math.max(call.deadlineNanos, until) : until;
                    call.holds = true;
                    if (place != null) {
                        call.places = with(call.places, place);
                    }
                } else {
                    leave(place);
                }
                acquire(asks, i + 1, resume, call, outcome, rc);
            } catch (RuntimeException e) {
                leave(place);
                call.leave();
                outcome.complete(failure(e, a.mp(), call.made));
            }
        }));
    }

    /**
     * Every policy admitted the call: at once, or after its hold. A held call whose client went away meanwhile is let
     * go (its permits stay charged); one that wakes too late is decided again with what is left of its max-wait, as
     * a new arrival.
     */
    private void admitted(Ask[] asks, Executor resume, Pending call, CompletableFuture<Outcome> outcome,
            RoutingContext rc) {
        if (!call.holds) {
            if (call.startNanos != 0 && rc != null && rc.response().closed()) { // it waited for a slot, and its client left
                admission.abandoned(call.made);
                outcome.complete(new Outcome.Abandoned(call.made)); // (its leases end at once)
                return;
            }
            if (call.ahead && call.askedNanos != 0) { // a permit that may wait: its runner checks it takes it up in time
                // the store decided after it was asked; a slot a call waited for counts from its grant, not from the
                // asking (issue 56: waiters for a slot, admitted ahead of their runner, were all "late" and decided
                // again, giving their slot back and queueing anew: the first ran 2 s after the slots freed)
                call.earliestNanos = call.askedNanos;
                outcome.complete(new Outcome.Admitted(call.made, null, null, new Released(asks, call, rc)));
            } else if (!call.ahead && call.askedNanos != 0 && waits.late(call.askedNanos)) { // (a permit that may wait)
                answeredLate(asks, call, resume, outcome, rc);
            } else {
                outcome.complete(new Outcome.Admitted(call.made));
            }
            return;
        }
        for (int j = 0; j < call.made.size(); j++) {
            if (holds(call.made.get(j))) {
                waitStats.held(call.made.get(j).policy().name(), asks[j].key());
            }
        }
        Runnable late = () -> {
            call.leave();
            long waited = released(asks, call, WaitStats.Release.LATE) / 1000;
            admission.wokeLate(call.made);
            decideAgain(asks, call, waited, resume, outcome, rc);
        };
        waits.hold(call.deadlineNanos, call.earliestNanos, () -> resume.execute(() -> {
            if (waits.late(call.earliestNanos)) { // on time when the timer fired, but its caller's context ran it late
                late.run();
                return;
            }
            call.leave();
            boolean gone = rc != null && rc.response().closed();
            if (!gone && heldMeanwhile(asks, call, resume, outcome, rc)) {
                return;
            }
            released(asks, call, gone ? WaitStats.Release.GONE : WaitStats.Release.RAN);
            if (gone) {
                admission.abandoned(call.made);
                outcome.complete(new Outcome.Abandoned(call.made));
            } else {
                outcome.complete(new Outcome.Admitted(call.made, null, null, new Released(asks, call, rc)));
            }
        }), () -> resume.execute(late));
    }

    /**
     * A refused outgoing call: refused by the upstream's pause when its key is held now (one store read, paid by refused
     * outgoing calls only), which the refusal then says instead of naming the limit that spreads the calls (issue 56).
     */
    private void refusedOutgoing(Ask a, Decision d, Pending call, Executor resume, CompletableFuture<Outcome> outcome) {
        CompletionStage<Long> held;
        try {
            held = upstreams.heldFor(a.configured(), a.key());
        } catch (RuntimeException e) {
            held = CompletableFuture.failedFuture(e);
        }
        held.whenComplete((micros, error) -> resume.execute(() -> outcome.complete(new Outcome.Refused(call.made,
                new RateLimitExceededException(d, a.cost(), false, error == null && micros != null && micros > 0)))));
    }

    /**
     * A call admitted at once whose store answered later than {@code slidegate.wait.late-tolerance} after it was asked
     * (a slow Redis, an instance too busy to read the answer): its permit may be that much older than the instant it
     * would run at, beside calls held for the permits of the next window. It is decided again as a held call that woke
     * late is (issue 56: a bean method returning {@code CompletionStage} ran ~140 ms after its permit, 27 to 36 runs in
     * one second of a 20/1s policy by the method's own clock). Only where a policy of the call may wait: the others
     * bound their decisions, not their runs (docs/strategies.md).
     */
    private void answeredLate(Ask[] asks, Pending call, Executor resume, CompletableFuture<Outcome> outcome,
            RoutingContext rc) {
        for (int j = 0; j < call.made.size(); j++) {
            if (mayWaitForAPermit(asks[j])) {
                waitStats.startedLate(call.made.get(j).policy().name());
            }
        }
        admission.wokeLate(call.made);
        call.leave();
        decideAgain(asks, call, (waits.nanoTime() - call.startNanos) / 1000, resume, outcome, rc);
    }

    /** Decides a held call again, as a new arrival, with what is left of its max-wait after {@code waitedMicros}. */
    private void decideAgain(Ask[] asks, Pending call, long waitedMicros, Executor resume, CompletableFuture<Outcome> outcome,
            RoutingContext rc) {
        ends.askedAgain(call.made, asks); // the leases of the first asking end, and what it reserved to settle comes back
        acquire(anew(asks, waitedMicros, true), 0, resume, new Pending(call.startNanos), outcome, rc);
    }

    /**
     * The asks of a call decided again after {@code waitedMicros}: the overrides and what its upstream taught read anew,
     * and what is left of each max-wait (none where {@code mayWait} is false).
     */
    private Ask[] anew(Ask[] asks, long waitedMicros, boolean mayWait) {
        Ask[] again = new Ask[asks.length];
        for (int j = 0; j < asks.length; j++) {
            again[j] = ask(asks[j].mp(), asks[j].configured(), asks[j].key(), asks[j].cost(), 0)
                    .withMaxWait(mayWait ? Math.max(0, asks[j].maxWait() - waitedMicros) : 0);
        }
        return again;
    }

    /**
     * For a held outgoing call, before it goes out: whether its upstream's answer to another call held the key meanwhile
     * (on any instance), which voids the permit it waited for. Then it is decided again (placed after the hold, within
     * what is left of its max-wait) and this returns {@code true}; the one store read this costs is paid only by calls
     * that waited. (A permit reserved before the upstream published lower limits stands: voiding every such permit, whose
     * charge stays until a refund exists, would stall the key for as long again.)
     */
    private boolean heldMeanwhile(Ask[] asks, Pending call, Executor resume, CompletableFuture<Outcome> outcome,
            RoutingContext rc) {
        Ask outgoing = null;
        for (int j = 0; j < call.made.size(); j++) {
            if (asks[j].mp().outgoing() && holds(call.made.get(j))) {
                outgoing = asks[j];
            }
        }
        if (outgoing == null) {
            return false;
        }
        Ask a = outgoing;
        CompletionStage<Long> held;
        try {
            held = upstreams.heldFor(a.configured(), a.key());
        } catch (RuntimeException e) {
            held = CompletableFuture.failedFuture(e);
        }
        held.whenComplete((micros, error) -> resume.execute(() -> {
            boolean lateNow = waits.late(call.earliestNanos); // the read took so long that the permit is too old now
            if (error == null && micros > 0 || lateNow) {
                long waited = released(asks, call, WaitStats.Release.LATE) / 1000;
                if (lateNow) {
                    admission.wokeLate(call.made);
                }
                decideAgain(asks, call, waited, resume, outcome, rc);
                return;
            }
            released(asks, call, WaitStats.Release.RAN); // the store could not say: the permit stands
            outcome.complete(new Outcome.Admitted(call.made, null, null, new Released(asks, call, rc)));
        }));
        return true;
    }

    /** Whether one of a call's policies may hold it ({@link #mayWait(Ask)}). */
    private static boolean mayWait(Ask[] asks) {
        for (Ask a : asks) {
            if (mayWait(a)) {
                return true;
            }
        }
        return false;
    }

    /** Whether a policy may hold the call: a max-wait, and a policy that enforces (dry-run never slows). */
    private static boolean mayWait(Ask a) {
        return a.maxWait() > 0 && !a.policy().dryRun();
    }

    /**
     * Whether a policy may hold the call for a permit at an instant ({@link #mayWait(Ask)}), as opposed to a slot of calls
     * in flight, which counts from when it is granted, however long the call waited for it.
     */
    private static boolean mayWaitForAPermit(Ask a) {
        return mayWait(a) && !a.policy().strategy().inFlight();
    }

    /** Whether {@code d} holds its call: it reserved a later instant, and its policy enforces (dry-run never slows). */
    private static boolean holds(Decision d) {
        return d.waits() && !d.policy().dryRun();
    }

    /**
     * Tells the wait statistics that a held call is let go, {@code how}.
     *
     * @return nanoseconds since the call was first asked
     */
    private long released(Ask[] asks, Pending call, WaitStats.Release how) {
        long heldNanos = waits.nanoTime() - call.startNanos;
        for (int j = 0; j < call.made.size(); j++) {
            Decision d = call.made.get(j);
            if (holds(d)) {
                waitStats.released(d.policy().name(), asks[j].key(), heldNanos, how);
            }
        }
        return heldNanos;
    }

    private static void leave(Waits.Place place) {
        if (place != null) {
            place.leave();
        }
    }

    private static <T> List<T> with(List<T> made, T d) {
        if (made.isEmpty()) {
            return List.of(d);
        }
        List<T> all = new ArrayList<>(made.size() + 1);
        all.addAll(made);
        all.add(d);
        return all;
    }

    private static Outcome storeFailure(Throwable error, List<Decision> made) {
        Throwable e = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        StoreUnavailableException unavailable = e instanceof StoreUnavailableException s ? s
                : new StoreUnavailableException("The rate-limit store failed: " + e, e);
        LOG.debugf("Rate-limit store unavailable: %s", unavailable.getMessage()); // the breaker logs outages once, not per request
        return new Outcome.StoreUnavailable(made, unavailable);
    }

    private static Outcome failure(RuntimeException e, MethodPolicy mp, List<Decision> made) {
        if (e instanceof MissingRateLimitKeyException missing) {
            return new Outcome.KeyMissing(missing);
        }
        LOG.errorf(e, "%s: policy '%s' could not decide a call", mp.where(), mp.policy().name());
        return new Outcome.Failed(made, mp.policy().name(), e);
    }

    /** Runs continuations on {@code caller} (inline when already there); inline outside Vert.x. */
    private static Executor resumeOn(Context caller) {
        if (caller == null) {
            return Runnable::run;
        }
        return command -> {
            if (Vertx.currentContext() == caller) {
                command.run();
            } else {
                caller.runOnContext(v -> command.run());
            }
        };
    }
}
