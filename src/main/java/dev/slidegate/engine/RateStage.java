package dev.slidegate.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Policy;
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
     * already in force is not lengthened), and the refusal says when the block ends; with {@code block-after=K/W}, only
     * at the K-th refusal within W. A block the store could not make is said by the refusal as it was (the caller is
     * refused either way).
     */
    private void block(Call call, Ask a, Decision d, long blockFor) {
        Policy refusals = a.mp().resolved().blockAfter();
        CompletionStage<Long> blocked;
        try {
            // block-after=K/W: this refusal is counted first, and only the K-th within W (the count's refusal) blocks
            blocked = refusals == null ? blocks.block(a.policy(), a.key(), blockFor)
                    : rates.acquire(refusals, a.key(), 1).thenCompose(counted -> counted.allowed()
                            ? java.util.concurrent.CompletableFuture.completedFuture(0L)
                            : blocks.block(a.policy(), a.key(), blockFor));
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

    /**
     * Whether policy {@code a} is decided together with the call's other such policies, in one atomic step of the store
     * ({@link Rates#acquireAll}): one that counts per window, enforces (not dry-run) and is not under an override that
     * blocks or exempts its key. The others are decided on their own, before ({@link Chain#inOrder}). An outgoing call's
     * policies are decided together too: each is charged at the instant the call goes out, the one at which all have
     * room (decided one after the other, a policy whose room came sooner was charged at its own instant while the call
     * waited for another's: its upstream saw the call later than the window said, and a provider's quota of tokens
     * beside its quota of requests was passed).
     */
    static boolean together(Ask a) {
        return !a.policy().inFlight() && !a.policy().dryRun()
                && (a.override() == null || (!a.override().override().block() && !a.override().override().exempt()));
    }

    /**
     * Whether {@code d}, policy {@code a}'s decision, refuses the call (counted and logged either way): then the call
     * leaves the waiting room and is answered (after its key is blocked, for a policy with {@code block-for}).
     */
    private boolean refused(Call call, Ask a, Decision d, WaitStage.Entry entry) {
        boolean full = entry.roomFull() && !d.allowed() && d.retryAfterMicros() <= a.maxWait();
        if (!admission.refuse(d, full)) {
            return false;
        }
        call.leave();
        if (full) {
            waitStats.waitingRoomFull(d.policy().name());
        }
        if (a.mp().outgoing() && !full) {
            chain.upstream.refused(call, a, d);
            return true;
        }
        long blockFor = a.mp().resolved().blockForMicros();
        // a limit frees a permit within its window (a sliding counter's within a window and a cell): a refusal until later
        // than twice the longest window is a hold (this block, or an upstream's), nothing to block, and a blocked caller's
        // refusals answered from memory cost the store nothing
        if (blockFor > 0 && !full && !d.policy().dryRun() && d.retryAfterMicros() <= 2 * d.policy().maxWindowMicros()) {
            block(call, a, d, blockFor);
            return true;
        }
        call.outcome.complete(new Outcome.Refused(call.made, new RateLimitExceededException(d, a.cost(), full)));
        return true;
    }

    /**
     * Asks policies {@code i} to the last of the call together, in one atomic step ({@link Rates#acquireAll}): all admit,
     * at one instant, and all are charged, or the one that refuses answers and none is charged.
     */
    private void askTogether(Call call, int i) {
        int count = call.asks.length - i;
        WaitStage.Entry[] entries = new WaitStage.Entry[count];
        List<Rates.Asked> asked = new ArrayList<>(count);
        try {
            for (int j = 0; j < count; j++) {
                Ask a = call.asks[i + j];
                entries[j] = chain.wait.enter(call, a);
                long maxWait = entries[j].place() == null ? 0 : a.maxWait();
                asked.add(new Rates.Asked(a.override() == null ? a.policy() : a.override().applyTo(a.policy()), a.key(),
                        a.cost(), maxWait));
            }
        } catch (RuntimeException e) {
            leaveAll(entries);
            call.end(Failures.of(e, call.asks[i].mp(), call.made));
            return;
        }
        CompletionStage<List<Decision>> decided;
        try {
            decided = rates.acquireAll(asked);
        } catch (RuntimeException e) {
            leaveAll(entries);
            call.end(Failures.ofStore(e, call.made));
            return;
        }
        decided.whenComplete((made, error) -> call.resume.execute(() -> {
            try {
                if (error != null) {
                    leaveAll(entries);
                    call.end(Failures.ofStore(error, call.made));
                    return;
                }
                if (made.size() < count) { // refused by one: nothing charged
                    int j = Rates.Asked.of(asked, made, 0);
                    Decision d = made.get(0);
                    call.made(d);
                    partition(call, call.asks[i + j], d);
                    leaveAll(entries);
                    if (!refused(call, call.asks[i + j], d, entries[j])) { // (a store that admits no part of a call)
                        call.end(Failures.ofStore(new IllegalStateException("the store refused a call of several "
                                + "policies without a refusal"), call.made));
                    }
                    return;
                }
                for (int j = 0; j < count; j++) {
                    Decision d = made.get(j);
                    call.made(d);
                    partition(call, call.asks[i + j], d);
                    admission.refuse(d, false);
                    chain.wait.admittedFor(call, d, entries[j]);
                }
                chain.next(call, call.asks.length);
            } catch (RuntimeException e) {
                leaveAll(entries);
                call.end(Failures.of(e, call.asks[i].mp(), call.made));
            }
        }));
    }

    private static void leaveAll(WaitStage.Entry[] entries) {
        for (WaitStage.Entry e : entries) {
            if (e != null) {
                WaitStage.leave(e.place());
            }
        }
    }

    /** Asks policy {@code i} of the call, then goes on with the next. */
    void ask(Call call, int i) {
        if (i < call.asks.length - 1 && together(call.asks[i]) && together(call.asks[i + 1])) {
            askTogether(call, i);
            return;
        }
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
                if (refused(call, a, d, entry)) {
                    WaitStage.leave(place);
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
