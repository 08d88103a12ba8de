package dev.slidegate.engine;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import dev.slidegate.api.Decision;
import dev.slidegate.api.RateLimitExceededException;

/**
 * The upstream pacing stage of the {@link Chain}: an outgoing call (a REST client's, or one the code reports) is decided
 * under what its upstream taught the fleet ({@link Upstreams}), read at most once per refresh before it is asked; a refused
 * one says whether the upstream's pause refused it; a held one checks, before it goes out, that no answer held its key
 * meanwhile. Calls without an outgoing policy pass through.
 */
final class UpstreamStage {

    private final Chain chain;
    private final Upstreams upstreams;

    UpstreamStage(Chain chain, Upstreams upstreams) {
        this.chain = chain;
        this.upstreams = upstreams;
    }

    /**
     * Asks policy {@code i} of the call, an outgoing one under what the fleet learned of its upstream: what it learned of
     * each policy decided with it ({@link RateStage#together}) is read first.
     */
    void ask(Call call, int i) {
        if (!call.asks[i].mp().outgoing()) {
            chain.rate.ask(call, i);
            return;
        }
        int last = i;
        while (last + 1 < call.asks.length && RateStage.together(call.asks[last])
                && RateStage.together(call.asks[last + 1])) {
            last++;
        }
        CompletionStage<Void> read = null;
        for (int j = i; j <= last; j++) {
            read = andRead(read, call.asks[j], null);
        }
        if (read == null) {
            chain.rate.ask(call, i);
            return;
        }
        int to = last;
        read.whenComplete((done, error) -> call.resume.execute(() -> {
            for (int j = i; j <= to; j++) {
                Ask a = call.asks[j];
                try {
                    call.asks[j] = chain.ask(a.mp(), a.configured(), a.key(), a.cost(), a.maxWait());
                } catch (RuntimeException e) {
                    call.end(Failures.of(e, a.mp(), call.made));
                    return;
                }
            }
            chain.rate.ask(call, i);
        }));
    }

    /**
     * A refused outgoing call: refused by the upstream's pause when its key is held now (one store read, paid by refused
     * outgoing calls only), which the refusal then says instead of naming the limit that spreads the calls (issue 56).
     */
    void refused(Call call, Ask a, Decision d) {
        heldFor(a)
                .whenComplete((micros, error) -> call.resume.execute(() -> call.outcome.complete(new Outcome.Refused(call.made,
                        new RateLimitExceededException(d, a.cost(), false, error == null && micros != null && micros > 0)))));
    }

    /**
     * A call about to be held for a permit ahead that an outgoing policy placed under its configured limits (this instance
     * knows nothing the key's upstream published): what the fleet learned is read first, unless this instance read it
     * since the call was asked, and a call placed under limits its upstream has lowered meanwhile is decided again at once
     * under them, its permit given back ({@link WaitStage#placedUnderLowered}) before other instances place their calls
     * around it. Calls that wait ask nothing meanwhile: an instance that had read the store before an answer said the
     * provider's quotas placed six calls at one instant under the configured limits, given back only as they woke, when
     * the other instances had placed theirs after them (UpstreamFleetIT: 0.9 s empty at the provider). The read is paid
     * by calls that wait, of keys whose upstream taught this instance nothing, and shared while under way.
     *
     * @return {@code false} when there is nothing to read and nothing lowered: the caller holds the call; else it is
     *         held ({@link WaitStage#hold}) once the read answered and no limit was lowered, or decided again
     */
    boolean placedAhead(Call call) {
        CompletionStage<Void> read = null;
        for (int j = 0; j < call.made.size(); j++) {
            Ask a = call.asks[j];
            if (a.mp().outgoing() && WaitStage.holds(call.made.get(j))) {
                read = andRead(read, a, call);
            }
        }
        if (read == null) {
            if (!lowered(call)) {
                return false;
            }
            chain.wait.placedUnderLowered(call);
            return true;
        }
        read.whenComplete((done, error) -> call.resume.execute(() -> {
            if (lowered(call)) {
                chain.wait.placedUnderLowered(call);
            } else {
                chain.wait.hold(call);
            }
        }));
        return true;
    }

    /**
     * For a held outgoing call, before it goes out: whether its upstream's answer to another call held the key meanwhile
     * (on any instance), which voids the permit it waited for. Then it is decided again (placed after the hold, within
     * what is left of its max-wait; the permit it waited for is given back: {@link CallEnds#askedAgain}) and this
     * returns {@code true}; the one store read this costs is paid only by calls that waited. A call placed under limits
     * its upstream has lowered since (a call that waited from before the first answer said the provider's quotas: placed
     * under the configured limits, it would go out into a window the quotas leave no room in) is decided again too,
     * under what the upstream publishes now: what the fleet learned is read again first when this instance has not read
     * it within {@code slidegate.upstream.learned-refresh} (beside the hold's read, not after it), since calls that wait
     * ask nothing meanwhile (UpstreamFleetIT: an instance that had read the store before the quotas were known placed six
     * calls at one instant under the configured limits; in another run eight calls went out within 13 ms).
     */
    boolean heldMeanwhile(Call call) {
        Ask outgoing = null;
        CompletionStage<Void> read = null;
        for (int j = 0; j < call.made.size(); j++) {
            Ask a = call.asks[j];
            if (a.mp().outgoing() && WaitStage.holds(call.made.get(j))) {
                outgoing = a;
                read = andRead(read, a, null);
            }
        }
        if (outgoing == null) {
            return false;
        }
        if (read == null && lowered(call)) {
            chain.wait.afterUpstreamRead(call, true);
            return true;
        }
        CompletionStage<Boolean> held = heldFor(outgoing).handle((micros, error) -> error == null && micros > 0);
        if (read != null) {
            held = held.thenCombine(read.exceptionally(e -> null), (h, learned) -> h);
        }
        held.whenComplete((h, error) -> call.resume.execute(
                () -> chain.wait.afterUpstreamRead(call, Boolean.TRUE.equals(h) || lowered(call))));
        return true;
    }

    /**
     * {@code read} (null: none) and the read of what the fleet learned of {@code a}'s upstream: where this instance's is
     * older than {@code slidegate.upstream.learned-refresh}, or, for a call placed {@code ahead} (null: none), where this
     * instance knows nothing the upstream published and has not read it since the call was asked; null when neither is
     * under way. A read that cannot start leaves {@code a} judged by what this instance knows.
     */
    private CompletionStage<Void> andRead(CompletionStage<Void> read, Ask a, Call ahead) {
        CompletionStage<Void> one;
        try {
            one = ahead == null ? upstreams.refresh(a.configured(), a.key())
                    : upstreams.readUnlearned(a.configured(), a.key(), ahead.startNanos);
        } catch (RuntimeException e) {
            one = null;
        }
        return one == null ? read : read == null ? one : read.thenCombine(one, (x, y) -> null);
    }

    /**
     * Whether an outgoing policy of {@code call} that holds it was decided under limits its upstream has lowered since, as
     * this instance knows them now.
     */
    private boolean lowered(Call call) {
        for (int j = 0; j < call.made.size(); j++) {
            Ask a = call.asks[j];
            if (a.mp().outgoing() && WaitStage.holds(call.made.get(j))
                    && lowered(upstreams.paced(a.configured(), a.key()), call.made.get(j).policy())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether {@code now} allows fewer permits than {@code decided} in a window both count (an upstream that said a lower
     * quota since): a call placed under higher limits would pass it. Limits that rose do not matter.
     */
    private static boolean lowered(dev.slidegate.api.Policy now, dev.slidegate.api.Policy decided) {
        for (dev.slidegate.api.Limit l : now.limits()) {
            for (dev.slidegate.api.Limit d : decided.limits()) {
                if (l.windowMicros() == d.windowMicros() && l.permits() < d.permits()) {
                    return true;
                }
            }
        }
        return false;
    }

    /** How long the upstream of {@code a} holds its key now (µs); a store that cannot say fails the stage. */
    private CompletionStage<Long> heldFor(Ask a) {
        try {
            return upstreams.heldFor(a.configured(), a.key());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }
}
