package dev.slidegate.engine;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

import dev.slidegate.api.Policy;
import dev.slidegate.core.DecisionStore;
import dev.slidegate.core.Overrides;
import dev.slidegate.metrics.WaitStats;

/**
 * The stages one call runs through (issue 57), each with one job:
 * <ol>
 * <li>{@link UpstreamStage}: an outgoing call is decided under what its upstream taught the fleet;</li>
 * <li>{@link RateStage}: each policy in order asks the store (through the override in force), the first refusal
 * answers;</li>
 * <li>{@link WaitStage}: a call admitted for a later instant takes a place in the waiting room and is held until then;
 * a call whose permit is too old when it would start is decided again;</li>
 * <li>{@link CallEnds}: the leases (calls in flight) and settlements an admitted call carries end in one place, however
 * the call ends.</li>
 * </ol>
 * The entry points build the call ({@link Decider}) and adapt its {@link Outcome}; no stage fails it: every failure becomes
 * an outcome ({@link Failures}).
 */
final class Chain {

    final RateStage rate;
    final WaitStage wait;
    final UpstreamStage upstream;
    private final CallEnds ends;
    private final Overrides overrides;
    private final Upstreams upstreams;

    Chain(DecisionStore store, Admission admission, Overrides overrides, Waits waits, WaitStats waitStats,
            Upstreams upstreams, Leases leases, dev.slidegate.core.PermitInstants instants) {
        this.overrides = overrides;
        this.upstreams = upstreams;
        this.ends = new CallEnds(leases, new Settlements(store, waits::nanoTime), store);
        this.wait = new WaitStage(this, waits, waitStats, admission, instants);
        this.upstream = new UpstreamStage(this, upstreams);
        this.rate = new RateStage(this, store, store, store, overrides, admission, waitStats);
    }

    /** Runs a new call of {@code asks} from its first policy: its outcome, with what its decisions took. */
    CompletionStage<Outcome> run(Ask[] asks, Executor resume, Exchange rc, long startNanos, boolean ahead) {
        asks = inOrder(asks);
        Call call = new Call(asks, resume, new CompletableFuture<>(), rc, startNanos);
        call.ahead = ahead;
        next(call, 0);
        return ends.attach(call.outcome, asks, rc);
    }

    /**
     * The asks of a call in the order they are decided: policies of calls in flight first (a slot refused charges nothing,
     * and one taken ends at once when a later policy refuses), then those decided on their own, then those decided
     * together in one atomic step ({@link RateStage#together}), each group in the order given. {@code asks} itself when
     * it is in that order already (a call of one policy always is).
     */
    static Ask[] inOrder(Ask[] asks) {
        int last = -1;
        boolean sorted = true;
        for (Ask a : asks) {
            int rank = rank(a);
            sorted &= rank >= last;
            last = Math.max(last, rank);
        }
        if (sorted) {
            return asks;
        }
        Ask[] ordered = new Ask[asks.length];
        int k = 0;
        for (int rank = 0; rank < 3; rank++) {
            for (Ask a : asks) {
                if (rank(a) == rank) {
                    ordered[k++] = a;
                }
            }
        }
        return ordered;
    }

    private static int rank(Ask a) {
        return a.policy().inFlight() ? 0 : RateStage.together(a) ? 2 : 1;
    }

    /** Goes on with policy {@code i} of the call: it is asked, or, after the last, the call is admitted. */
    void next(Call call, int i) {
        if (i == call.asks.length) {
            wait.admitted(call);
        } else {
            upstream.ask(call, i);
        }
    }

    /**
     * Decides {@code call} again, as a new arrival, with what is left of its max-wait after {@code waitedMicros} (none
     * where {@code mayWait} is false): the leases of the first asking end, what it reserved to settle comes back, and
     * where its upstream {@code voided} the permits it waited for, those too ({@link CallEnds#askedAgain}).
     */
    void again(Call call, long waitedMicros, boolean mayWait, boolean voided) {
        ends.askedAgain(call.made, call.asks, voided);
        next(call.anew(anew(call.asks, waitedMicros, mayWait)), 0);
    }

    /**
     * One policy's part in a call, with the override in force for its key (none looked up when none is loaded); an
     * outgoing call is decided under what its upstream taught ({@link Upstreams#paced}).
     */
    Ask ask(MethodPolicy mp, Policy policy, String key, int cost, long maxWait) {
        Policy decided = mp.outgoing() ? upstreams.paced(policy, key) : policy;
        return new Ask(mp, decided, key, cost, overrides.isEmpty() ? null : overrides.find(mp.name(), decided, key), maxWait,
                policy);
    }

    /**
     * The asks of a call decided again after {@code waitedMicros}: the overrides and what its upstream taught read anew,
     * and what is left of each max-wait (none where {@code mayWait} is false).
     */
    Ask[] anew(Ask[] asks, long waitedMicros, boolean mayWait) {
        Ask[] again = new Ask[asks.length];
        for (int j = 0; j < asks.length; j++) {
            again[j] = ask(asks[j].mp(), asks[j].configured(), asks[j].key(), asks[j].cost(), 0)
                    .withMaxWait(mayWait ? Math.max(0, asks[j].maxWait() - waitedMicros) : 0);
        }
        return again;
    }
}
