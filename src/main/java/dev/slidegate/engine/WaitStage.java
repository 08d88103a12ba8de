package dev.slidegate.engine;

import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

import dev.slidegate.api.Decision;
import dev.slidegate.metrics.WaitStats;

/**
 * The wait stage of the {@link Chain}: a policy whose call may wait takes a place in the waiting room before it is asked
 * (none left: it is asked without a wait, and a refusal it could have waited out says the room was full); a permit for a
 * later instant pushes the call's deadline there, and once every policy admitted, the call is held until it. A call whose
 * permit is older than the late tolerance when it would start (a timer or a context that ran late, a store's answer that
 * came late, a runner that took it up late) does not run on it: it is decided again, as a new arrival, with what is left
 * of its max-wait (issue 56). A held call whose client went away is let go; its permits stay charged.
 */
final class WaitStage {

    /** A policy's place in the waiting room ({@code null}: none taken), and when its store call was sent. */
    record Entry(Waits.Place place, boolean roomFull, long askedNanos) {
        /** A policy that does not wait: no place, nothing asked for (shared, nothing allocated per decision). */
        static final Entry NONE = new Entry(null, false, 0);
    }

    private final Chain chain;
    private final Waits waits;
    private final WaitStats waitStats;
    private final Admission admission;
    /** Where the store's clock falls on the instance's: where a held call's permit lies. */
    private final dev.slidegate.core.PermitInstants instants;

    WaitStage(Chain chain, Waits waits, WaitStats waitStats, Admission admission,
            dev.slidegate.core.PermitInstants instants) {
        this.chain = chain;
        this.waits = waits;
        this.waitStats = waitStats;
        this.admission = admission;
        this.instants = instants;
    }

    /** Before policy {@code a} of the call is asked: its place in the waiting room, where it may wait. */
    Entry enter(Call call, Ask a) {
        if (a.maxWait() <= 0) {
            return Entry.NONE;
        }
        Waits.Place place = a.maxWait() > 0 ? waits.enter(a.policy().name(), a.key()) : null;
        long asked = place == null ? 0 : waits.nanoTime(); // only a call with a place may be held
        if (call.askedNanos == 0 && mayWaitForAPermit(a)) {
            call.askedNanos = asked;
        }
        return new Entry(place, a.maxWait() > 0 && place == null, asked);
    }

    /**
     * Policy {@code d} admitted the call: at once, or for a later instant, which pushes the call's deadline there. The
     * call alone knows that instant to within its answer's round trip (the store decided after the asking, before the
     * arrival); where the store's clock is placed on this instance's ({@link dev.slidegate.core.PermitInstants}), to
     * within a quick reading's, however late this answer came. A permit admitted at once is judged from no later than
     * its answer's arrival: one a hot key's batch lent reports an instant of the batch's, which may lie ahead of the
     * store's time, and is answered at its asking.
     */
    void admittedFor(Call call, Decision d, Entry entry) {
        if (!holds(d)) {
            leave(entry.place());
            if (entry.askedNanos() != 0 && !d.fallback() && !d.policy().inFlight() && !d.policy().dryRun()) {
                // the store decided between the asking and this arrival, where its clock places that (a permit a hot
                // key's batch lent is answered at its asking: nothing changes for it)
                long placed = instants.earliestNanos(d.atMicros()); // (Long.MIN_VALUE in process: no clock read more)
                long earliest = placed > entry.askedNanos() ? Math.min(waits.nanoTime(), placed) : entry.askedNanos();
                call.atOnceNanos = Math.min(call.atOnceNanos, earliest);
            }
            return;
        }
        long now = waits.nanoTime();
        long until = now + d.waitMicros() * 1000; // from the answer's arrival: never before the permit
        long earliest = entry.askedNanos() + d.waitMicros() * 1000; // the store decided after it was asked
        if (!d.fallback()) { // (a fallback's decision is on this instance's clock)
            until = Math.min(until, Math.max(now, instants.latestNanos(d.atMicros())));
            earliest = Math.max(earliest, instants.earliestNanos(d.atMicros()));
        }
        call.earliestNanos = call.holds && call.deadlineNanos >= until ? call.earliestNanos : earliest;
        call.deadlineNanos = call.holds ? Math.max(call.deadlineNanos, until) : until;
        call.holds = true;
        if (entry.place() != null) {
            call.keep(entry.place());
        }
    }

    /**
     * Every policy admitted the call: at once, or after its hold. A call that waited for a slot and whose client went away
     * meanwhile is let go; a call decided ahead of its runner carries the instant it was asked.
     */
    void admitted(Call call) {
        if (!call.holds) {
            if (call.startNanos != 0 && call.clientGone()) { // it waited for a slot, and its client left
                admission.abandoned(call.made);
                call.outcome.complete(new Outcome.Abandoned(call.made)); // (its leases end at once)
                return;
            }
            long asked = call.atOnceNanos != Long.MAX_VALUE ? call.atOnceNanos : call.askedNanos;
            if (call.ahead && call.askedNanos != 0) { // a permit that may wait: its runner checks it takes it up in time
                // the store decided after it was asked; a slot a call waited for counts from its grant, not from the
                // asking (issue 56: waiters for a slot, admitted ahead of their runner, were all "late" and decided
                // again, giving their slot back and queueing anew: the first ran 2 s after the slots freed)
                call.earliestNanos = asked;
                call.outcome.complete(new Outcome.Admitted(call.made, null, null, call));
            } else if (!call.ahead && call.askedNanos != 0 && waits.late(asked)) { // (a permit that may wait)
                answeredLate(call);
            } else {
                call.outcome.complete(new Outcome.Admitted(call.made));
            }
            return;
        }
        if (!chain.upstream.placedAhead(call)) {
            hold(call);
        }
    }

    /** Holds an admitted call until its permits' instant, then lets it go (or decides it again where it woke late). */
    void hold(Call call) {
        for (int j = 0; j < call.made.size(); j++) {
            if (holds(call.made.get(j))) {
                waitStats.held(call.made.get(j).policy().name(), call.asks[j].key());
            }
        }
        Runnable late = () -> {
            call.leave();
            long waited = released(call, WaitStats.Release.LATE) / 1000;
            admission.wokeLate(call.made);
            chain.again(call, waited, true, false);
        };
        waits.hold(call.deadlineNanos, call.earliestNanos, () -> call.resume.execute(() -> {
            if (waits.late(call.earliestNanos)) { // on time when the timer fired, but its caller's context ran it late
                late.run();
                return;
            }
            call.leave();
            boolean gone = call.clientGone();
            if (!gone && chain.upstream.heldMeanwhile(call)) {
                return;
            }
            released(call, gone ? WaitStats.Release.GONE : WaitStats.Release.RAN);
            if (gone) {
                admission.abandoned(call.made);
                call.outcome.complete(new Outcome.Abandoned(call.made));
            } else {
                call.outcome.complete(new Outcome.Admitted(call.made, null, null, call));
            }
        }), () -> call.resume.execute(late));
    }

    /**
     * A held outgoing call after its upstream was read ({@link UpstreamStage#heldMeanwhile}): decided again when the key
     * was held meanwhile ({@code heldNow}) or the read took so long that its permit is too old now; else it goes out.
     */
    void afterUpstreamRead(Call call, boolean heldNow) {
        boolean lateNow = waits.late(call.earliestNanos);
        if (heldNow || lateNow) {
            long waited = released(call, WaitStats.Release.LATE) / 1000;
            if (lateNow) {
                admission.wokeLate(call.made);
            }
            chain.again(call, waited, true, heldNow);
            return;
        }
        released(call, WaitStats.Release.RAN); // the store could not say: the permit stands
        call.outcome.complete(new Outcome.Admitted(call.made, null, null, call));
    }

    /**
     * A call placed ahead under limits its upstream has lowered since ({@link UpstreamStage#placedAhead}), before it is
     * held: decided again at once under them, its permits given back, with what is left of its max-wait.
     */
    void placedUnderLowered(Call call) {
        call.leave();
        chain.again(call, (waits.nanoTime() - call.startNanos) / 1000, true, true);
    }

    /**
     * A call admitted at once whose store answered later than {@code slidegate.wait.late-tolerance} after it was asked
     * (a slow Redis, an instance too busy to read the answer): its permit may be that much older than the instant it
     * would run at, beside calls held for the permits of the next window. It is decided again as a held call that woke
     * late is (issue 56: a bean method returning {@code CompletionStage} ran ~140 ms after its permit, 27 to 36 runs in
     * one second of a 20/1s policy by the method's own clock). Only where a policy of the call may wait: the others
     * bound their decisions, not their runs (docs/strategies.md).
     */
    private void answeredLate(Call call) {
        for (int j = 0; j < call.made.size(); j++) {
            if (mayWaitForAPermit(call.asks[j])) {
                waitStats.startedLate(call.made.get(j).policy().name());
            }
        }
        admission.wokeLate(call.made);
        call.leave();
        chain.again(call, (waits.nanoTime() - call.startNanos) / 1000, true, false);
    }

    /**
     * Whether {@code o} admits a call that the code about to run it takes up later than the late tolerance after its
     * permit's instant: a held call (the hold was checked when it was released), or one admitted at once before its request
     * was dispatched ({@link Decider#decideAhead}).
     */
    boolean late(Outcome o) {
        return o instanceof Outcome.Admitted a && a.released() != null && waits.late(a.released().earliestNanos);
    }

    /**
     * Decides again, as a new arrival, a call whose runner took it up too late ({@link #late}): it does not run on its
     * first admission (its leases end, what it charged to settle comes back; its permits stay charged, as for a call that
     * woke late), and it may wait what is left of its max-wait where {@code mayWait}.
     */
    CompletionStage<Outcome> again(Outcome.Admitted a, Executor resume, boolean mayWait) {
        Call h = a.released();
        a.notRun();
        long waitedMicros = (waits.nanoTime() - h.startNanos) / 1000;
        List<Decision> made = a.decisions();
        for (int j = 0; j < made.size(); j++) {
            if (mayWait(h.asks[j])) { // released, or admitted at once ahead
                waitStats.startedLate(made.get(j).policy().name());
            }
        }
        admission.wokeLate(made);
        return chain.run(chain.anew(h.asks, waitedMicros, mayWait), resume, h.rc, h.startNanos, false);
    }

    /** A call starting now: the monotonic clock is read only when one of its policies may wait. */
    long start(Ask[] asks) {
        for (Ask a : asks) {
            if (a.maxWait() > 0) {
                return waits.nanoTime();
            }
        }
        return 0;
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
        return mayWait(a) && !a.policy().inFlight();
    }

    /** Whether {@code d} holds its call: it reserved a later instant, and its policy enforces (dry-run never slows). */
    static boolean holds(Decision d) {
        return d.waits() && !d.policy().dryRun();
    }

    /**
     * Tells the wait statistics that a held call is let go, {@code how}.
     *
     * @return nanoseconds since the call was first asked
     */
    private long released(Call call, WaitStats.Release how) {
        long heldNanos = waits.nanoTime() - call.startNanos;
        for (int j = 0; j < call.made.size(); j++) {
            Decision d = call.made.get(j);
            if (holds(d)) {
                waitStats.released(d.policy().name(), call.asks[j].key(), heldNanos, how);
            }
        }
        return heldNanos;
    }

    static void leave(Waits.Place place) {
        if (place != null) {
            place.leave();
        }
    }
}
