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
    private final Overrides overrides;
    private final Admission admission;
    private final WaitStats waitStats;

    RateStage(Chain chain, Rates rates, InFlightSlots slots, Overrides overrides, Admission admission, WaitStats waitStats) {
        this.chain = chain;
        this.rates = rates;
        this.slots = slots;
        this.overrides = overrides;
        this.admission = admission;
        this.waitStats = waitStats;
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
                if (call.rc != null && a.mp().resolved().partitionKey()) {
                    call.rc.partition(d, a.key()); // the answer names the caller's partition (pk)
                }
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
