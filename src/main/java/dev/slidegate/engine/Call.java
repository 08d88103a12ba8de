package dev.slidegate.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

import dev.slidegate.api.Decision;

/**
 * One call on its way through the stages of the {@link Decider} (issue 57): what it asks of each policy, the decisions made
 * so far (the i-th that of the i-th ask), and for a call that may wait, its places in the waiting room and the instants
 * (monotonic) of its permits. Every stage continues on {@link #resume} and ends the call by completing {@link #outcome}
 * once. An admitted call that its runner takes up some time later carries this call ({@link Outcome.Admitted#released}):
 * what deciding it again needs, should that runner be too late ({@link Decider#late}).
 */
final class Call {

    final Ask[] asks;
    /** Where the stages continue: the caller's Vert.x context, or inline. */
    final Executor resume;
    final CompletableFuture<Outcome> outcome;
    /** The HTTP request, or {@code null} outside HTTP. */
    final Exchange rc;
    /** When the call was first asked (monotonic), where one of its policies may wait; else 0, never read. */
    final long startNanos;
    List<Decision> made = List.of();
    List<Waits.Place> places = List.of();
    /** Held until (monotonic): the latest permit's wait, counted from its answer's arrival (never early). */
    long deadlineNanos;
    /**
     * The earliest instant that permit can be (its wait counted from when it was asked): lateness is judged from here, so
     * a store's answer that arrived late cannot hide it.
     */
    long earliestNanos;
    boolean holds;
    /** Decided ahead of the thread that will run it ({@link Decider#decideAhead}). */
    boolean ahead;
    /**
     * When this round's first store call of a policy that may wait was sent (monotonic), 0 before: the earliest instant a
     * permit admitted at once can be. A round is the first asking, or a deciding again.
     */
    long askedNanos;
    /**
     * The earliest instant the oldest permit admitted at once can be: between its asking and its answer's arrival, where
     * the store's clock places it ({@link dev.slidegate.core.PermitInstants}); {@link Long#MAX_VALUE} before.
     */
    long atOnceNanos = Long.MAX_VALUE;

    Call(Ask[] asks, Executor resume, CompletableFuture<Outcome> outcome, Exchange rc, long startNanos) {
        this.asks = asks;
        this.resume = resume;
        this.outcome = outcome;
        this.rc = rc;
        this.startNanos = startNanos;
    }

    /** The same call asked anew with {@code again} (a round after the first): same start, same outcome. */
    Call anew(Ask[] again) {
        return new Call(again, resume, outcome, rc, startNanos);
    }

    /** Whether the HTTP client of this call went away. */
    boolean clientGone() {
        return rc != null && rc.clientGone();
    }

    void made(Decision d) {
        made = with(made, d);
    }

    /** The last decision made, said anew as {@code d} (a refusal that blocked its key says when the block ends). */
    void remade(Decision d) {
        List<Decision> all = new ArrayList<>(made);
        all.set(all.size() - 1, d);
        made = all;
    }

    void keep(Waits.Place place) {
        places = with(places, place);
    }

    /** Leaves every place the call holds in the waiting room. */
    void leave() {
        List<Waits.Place> ps = places;
        for (int i = 0; i < ps.size(); i++) { // (by index: no iterator for every call)
            ps.get(i).leave();
        }
    }

    /** Ends the call with {@code o}, leaving its places first. */
    void end(Outcome o) {
        leave();
        outcome.complete(o);
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
}
