package dev.slidegate.engine;

import java.util.concurrent.CompletionStage;

import dev.slidegate.api.Decision;
import dev.slidegate.api.RateLimitExceededException;
import dev.slidegate.core.InFlightSlots;
import dev.slidegate.core.Overrides;
import dev.slidegate.core.Rates;
import dev.slidegate.metrics.WaitStats;

/**
 * The admission stage of the {@link Chain}: asks the store for one policy's permits ({@link Rates}) or, for a policy of
 * calls in flight, its slot ({@link InFlightSlots}: a primitive of its own, whose lease {@link Leases} keeps), through the
 * override in force for its key; counts and logs the decision ({@link Admission}); the first refusal answers the call and
 * later policies are not asked. A permit for a later instant is the {@link WaitStage}'s to hold.
 */
final class RateStage {

    private final Chain chain;
    private final Rates rates;
    private final InFlightSlots slots;
    /** Where a breach blocks its key ({@code block-for}). */
    private final dev.slidegate.core.UpstreamHolds blocks;
    private final Overrides overrides;
    private final Admission admission;
    private final WaitStats waitStats;

    RateStage(Chain chain, Rates rates, InFlightSlots slots, dev.slidegate.core.UpstreamHolds blocks, Overrides overrides,
            Admission admission, WaitStats waitStats) {
        this.chain = chain;
        this.rates = rates;
        this.slots = slots;
        this.blocks = blocks;
        this.overrides = overrides;
        this.admission = admission;
        this.waitStats = waitStats;
    }

    /**
     * A breach of a policy with {@code block-for}: its key is blocked for that long in the store (fleet-wide; a block
     * already in force is not lengthened), and the refusal says when the block ends. A block the store could not make is
     * said by the refusal as it was (the caller is refused either way).
     */
    private void block(Call call, Ask a, Decision d, long blockFor) {
        CompletionStage<Long> blocked;
        try {
            blocked = blocks.block(a.policy(), a.key(), blockFor);
        } catch (RuntimeException e) {
            blocked = java.util.concurrent.CompletableFuture.failedFuture(e);
        }
        blocked.whenComplete((held, error) -> call.resume.execute(() -> {
            Decision refusal = error != null || held == null || held <= d.retryAfterMicros() ? d : blockedFor(d, held);
            if (refusal != d) {
                call.remade(refusal); // the answer's RateLimit fields say the block too
                partition(call, a, refusal);
            }
            call.outcome.complete(new Outcome.Refused(call.made, new RateLimitExceededException(refusal, a.cost())));
        }));
    }

    /** For a policy whose answers name the caller's partition ({@code pk}): which key {@code d} counted. */
    private static void partition(Call call, Ask a, Decision d) {
        if (call.rc != null && a.mp().resolved().partitionKey()) {
            call.rc.partition(d, a.key());
        }
    }

    /** {@code d}, refused until the block ends {@code heldMicros} from now: its retry-after and every limit's reset. */
    private static Decision blockedFor(Decision d, long heldMicros) {
        java.util.List<dev.slidegate.api.LimitState> states = new java.util.ArrayList<>(d.states().size());
        for (dev.slidegate.api.LimitState s : d.states()) {
            states.add(new dev.slidegate.api.LimitState(s.limit(), 0, Math.max(s.resetMicros(), heldMicros)));
        }
        return new Decision(d.policy(), false, d.trippedIndex(), heldMicros, d.atMicros(), states, d.fallback(),
                d.waitMicros());
    }

    /** Asks policy {@code i} of the call, then goes on with the next. */
    void ask(Call call, int i) {
        Ask a = call.asks[i];
        WaitStage.Entry entry = chain.wait.enter(call, a);
        Waits.Place place = entry.place();
        CompletionStage<Decision> decision;
        try {
            long maxWait = place == null ? 0 : a.maxWait();
            decision = a.policy().inFlight() ? overrides.enter(a.override(), slots, a.policy(), a.key(), maxWait)
                    : overrides.acquire(a.override(), rates, a.policy(), a.key(), a.cost(), maxWait);
        } catch (RuntimeException e) {
            WaitStage.leave(place);
            call.end(Failures.ofStore(e, call.made));
            return;
        }
        decision.whenComplete((d, error) -> call.resume.execute(() -> {
            try {
                if (error != null) {
                    WaitStage.leave(place);
                    call.end(Failures.ofStore(error, call.made));
                    return;
                }
                call.made(d);
                partition(call, a, d);
                boolean full = entry.roomFull() && !d.allowed() && d.retryAfterMicros() <= a.maxWait();
                if (admission.refuse(d, full)) {
                    WaitStage.leave(place);
                    call.leave();
                    if (full) {
                        waitStats.waitingRoomFull(d.policy().name());
                    }
                    if (a.mp().outgoing() && !full) {
                        chain.upstream.refused(call, a, d);
                        return;
                    }
                    long blockFor = a.mp().resolved().blockForMicros();
                    // a limit frees a permit within its window (a sliding counter's within a window and a cell): a refusal
                    // until later than twice the longest window is a hold (this block, or an upstream's), nothing to block,
                    // and a blocked caller's refusals answered from memory cost the store nothing
                    if (blockFor > 0 && !full && !d.policy().dryRun()
                            && d.retryAfterMicros() <= 2 * d.policy().maxWindowMicros()) {
                        block(call, a, d, blockFor);
                        return;
                    }
                    call.outcome.complete(new Outcome.Refused(call.made, new RateLimitExceededException(d, a.cost(), full)));
                    return;
                }
                chain.wait.admittedFor(call, d, entry);
                chain.next(call, i + 1);
            } catch (RuntimeException e) {
                WaitStage.leave(place);
                call.end(Failures.of(e, a.mp(), call.made));
            }
        }));
    }
}
