package dev.slidegate.engine;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import dev.slidegate.api.Decision;

/**
 * How a call's leases (policies with {@code max-in-flight}) and settlements (policies with {@code settle}) end, in one
 * place however the call ends (issue 57): an admitted call carries them until it is done; a call refused, failed or let
 * go ends them at once; a call decided again ends those of its first asking before it asks anew.
 */
final class CallEnds {

    private final Leases leases;
    private final Settlements settlements;
    private final dev.slidegate.core.Rates rates;

    CallEnds(Leases leases, Settlements settlements, dev.slidegate.core.Rates rates) {
        this.leases = leases;
        this.settlements = settlements;
        this.rates = rates;
    }

    /**
     * The outcome with what its decisions took: the admitted call holds its leases and what it settles until it is done;
     * any other outcome ends them at once. The outcome itself when no policy of the call counts calls in flight or
     * settles.
     */
    CompletionStage<Outcome> attach(CompletableFuture<Outcome> outcome, Ask[] asks, Exchange rc) {
        boolean inFlight = false;
        boolean settles = false;
        for (Ask a : asks) {
            inFlight |= a.policy().inFlight();
            settles |= a.mp().settlement().settles();
        }
        if (!inFlight && !settles) {
            return outcome;
        }
        String[] keys = keysOf(asks);
        boolean leased = inFlight;
        boolean settled = settles;
        return outcome.thenApply(o -> {
            Outcome held = leased ? leases.settle(o, keys) : o;
            if (settled && held instanceof Outcome.Admitted a) {
                Settlements.Settling s = settlements.of(a.decisions(), asks, rc);
                return s == null ? a : a.withSettling(s);
            }
            if (settled && !held.decisions().isEmpty()) { // not run: what policies that settle charged comes back
                settlements.notRun(held.decisions(), asks);
            }
            return held;
        });
    }

    /**
     * A call decided again ({@code made}, its first asking's decisions): their leases end, what they charged to settle
     * comes back. Where its upstream {@code voided} the permits it waited for (its pause came over them, or it lowered
     * the quota they were placed under: {@link UpstreamStage#heldMeanwhile}), each permit reserved for a later instant
     * ({@link WaitStage#holds}) is given back too ({@link dev.slidegate.core.Rates#giveBack}): the call never goes out on
     * it. Kept, every waiting call a pause caught left its permit unused in its window, and a fleet sat idle a second
     * and more after the pause ended (UpstreamFleetIT: 1 030 tokens/s of a provider's 2 000). A call that woke too late
     * keeps its permits charged (docs/strategies.md), and a permit admitted at once always stays: it may be one a hot
     * key's batch lent ({@link dev.slidegate.core.HotKeys}), which the store's log does not hold at that instant.
     */
    void askedAgain(List<Decision> made, Ask[] asks, boolean voided) {
        leases.settle(new Outcome.Abandoned(made), keysOf(asks));
        settlements.notRun(made, asks);
        for (int j = 0; voided && j < made.size(); j++) {
            Decision d = made.get(j);
            Ask a = asks[j];
            if (WaitStage.holds(d) && Settlements.charged(d) && !a.policy().inFlight() && !a.mp().settlement().settles()) {
                try {
                    rates.giveBack(d.policy(), a.key(), d.atMicros(), a.cost());
                } catch (RuntimeException e) { // a permit not given back only slows the calls that follow
                }
            }
        }
    }

    /** The caller key of each ask, in order: what each decision's lease is kept under. */
    private static String[] keysOf(Ask[] asks) {
        String[] keys = new String[asks.length];
        for (int j = 0; j < asks.length; j++) {
            keys[j] = asks[j].key();
        }
        return keys;
    }
}
