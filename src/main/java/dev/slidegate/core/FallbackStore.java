package dev.slidegate.core;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import dev.slidegate.api.Decision;
import dev.slidegate.api.FailMode;
import dev.slidegate.api.LimitState;
import dev.slidegate.api.Policy;
import dev.slidegate.api.StoreUnavailableException;

/**
 * A remote store with a way out: when it fails (an error, or no answer within its time budget) or
 * its {@link Breaker} is open, each policy's {@link FailMode} decides: {@code open} admits,
 * {@code closed} refuses (the caller gets 503), {@code local} decides in process at N ÷ instances,
 * where the number of instances is asked for each time (learned through Redis, or configured).
 * Nothing is retried here: a call that timed out may have run and charged the caller already, which
 * only over-charges (the permit counts in Redis, and the local decision stands on its own). Where the store
 * still answers it ({@link AnsweredLate}), a permit the fail mode {@code local} admitted for it is not charged
 * to the store a second time.
 *
 * <p>
 * In {@code local} mode each instance decides within its share of N, started from what the store last said of the key,
 * and what it admitted is charged to the store when it answers again ({@link LocalShare}).
 * The admin reads and resets through the other SPI ({@link StoreInspection}); a reset tells {@link #forget} too.
 *
 * <p>
 * A Redis out of memory ({@code OOM}, under {@code noeviction}) fails only the decisions that need new
 * memory, each decided by its fail mode; it does not open the breaker, since Redis still answers and
 * still decides on the windows it holds: a flood of new keys that fills Redis must not hand every
 * other caller (an address locked out of a login) a fresh local window. One warning a minute says so.
 */
public final class FallbackStore implements DecisionStore {

    private final DecisionStore delegate;
    private final Breaker breaker;
    private final java.util.function.Consumer<Throwable> onError;
    /** Where the fail mode {@code local} decides and keeps what the store cannot: each policy's share of its limits. */
    private final LimiterStore local;
    /** The fail mode {@code local}: each policy's share decided here, and what it admitted owed to the store. */
    private final LocalShare shares;

    public FallbackStore(DecisionStore remote, LimiterStore local, int instances, Breaker breaker) {
        this(remote, local, () -> instances, breaker, e -> {
        });
    }

    /**
     * @param instances how many instances share the limits now (asked at each local decision; below 1 counts as 1)
     * @param onError told of every failed call to the remote store (each one is then decided by the fail mode); e.g. metrics
     */
    public FallbackStore(DecisionStore remote, LimiterStore local, java.util.function.IntSupplier instances, Breaker breaker,
            java.util.function.Consumer<Throwable> onError) {
        this.delegate = remote;
        this.local = local;
        this.breaker = breaker;
        this.onError = onError;
        this.shares = new LocalShare(remote, local, instances, breaker::now);
    }

    public Breaker breaker() {
        return breaker;
    }

    @Override
    public CompletionStage<Decision> acquire(Policy policy, String key, int cost, long maxWaitMicros) {
        return decide(policy, key, cost, maxWaitMicros, false);
    }

    /** A slot of calls in flight: as a rate, but nothing of a window is remembered or owed (leases end with calls). */
    @Override
    public CompletionStage<Decision> enter(Policy policy, String key, long maxWaitMicros) {
        return decide(policy, key, 1, maxWaitMicros, true);
    }

    private CompletionStage<Decision> decide(Policy policy, String key, int cost, long maxWaitMicros, boolean slot) {
        if (!breaker.allowRequest()) {
            return fallback(policy, key, cost, maxWaitMicros, slot, null, null);
        }
        long sentAt = breaker.now();
        CompletionStage<Decision> remote;
        CompletionStage<Void> owed = shares.chargeOwed(policy, key);
        if (owed != null) { // the store may answer again: what was admitted without it is charged there first (its key
            // and policy were taken by the fail mode already)
            remote = owed.thenCompose(charged -> delegate.acquire(policy, key, cost, maxWaitMicros));
        } else {
            try {
                remote = slot ? delegate.enter(policy, key, maxWaitMicros) : delegate.acquire(policy, key, cost, maxWaitMicros);
            } catch (IllegalArgumentException e) {
                breaker.abandonProbe(); // the caller's mistake (a bad key or cost), no news of the store either way
                throw e;
            } catch (RuntimeException e) { // the breaker must hear of every call it let through, or a probe never ends
                remote = CompletableFuture.failedFuture(e);
            }
        }
        return remote.handle((d, error) -> {
            if (error == null) {
                breaker.success(sentAt);
                if (!slot) {
                    shares.remember(policy, key, d);
                }
                shares.chargeAllOwed();
                return CompletableFuture.completedFuture(d);
            }
            Throwable cause = failed(error, sentAt);
            return fallback(policy, key, cost, maxWaitMicros, slot, cause, answeredLate(cause));
        }).thenCompose(stage -> stage);
    }

    /**
     * A decision the breaker let through failed with {@code error}: the breaker and {@code onError} are told (a Redis out
     * of memory answered, so the store did not fail), and the cause is what the fail mode decides with.
     */
    private Throwable failed(Throwable error, long sentAt) {
        Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                ? error.getCause()
                : error;
        if (WriteRefusals.outOfMemory(cause)) {
            breaker.success(sentAt); // answered: this decision failed, the store did not
            warnOutOfMemory(cause);
        } else {
            breaker.failure(cause);
        }
        onError.accept(cause);
        return cause;
    }

    /**
     * A call of several policies, decided by the store in one step; while the store cannot be reached (the breaker is open,
     * or what a fail mode admitted must be charged to it first), or when the step fails, each policy in order by its fail
     * mode ({@link Rates#acquireAll}'s default: to the first refusal), as a call of one policy would be.
     */
    @Override
    public CompletionStage<List<Decision>> acquireAll(List<Asked> asks) {
        boolean owes = false;
        for (Asked a : asks) {
            owes |= shares.owes(a.policy(), a.key());
        }
        if (owes || !breaker.allowRequest()) {
            return DecisionStore.super.acquireAll(asks);
        }
        long sentAt = breaker.now();
        CompletionStage<List<Decision>> remote;
        try {
            remote = delegate.acquireAll(asks);
        } catch (IllegalArgumentException e) {
            breaker.abandonProbe();
            throw e;
        } catch (RuntimeException e) {
            remote = CompletableFuture.failedFuture(e);
        }
        return remote.handle((made, error) -> {
            if (error == null) {
                breaker.success(sentAt);
                for (int i = 0; i < made.size(); i++) {
                    Asked a = asks.get(Asked.of(asks, made, i));
                    shares.remember(a.policy(), a.key(), made.get(i));
                }
                return CompletableFuture.completedFuture(made);
            }
            Throwable cause = failed(error, sentAt);
            AnsweredLate late = answeredLate(cause);
            return Rates.inTurn(asks, a -> fallback(a.policy(), a.key(), a.cost(), a.maxWaitMicros(), false, cause,
                    late == null ? null : answerTo(late, asks, a)));
        }).thenCompose(stage -> stage);
    }

    /**
     * Settles in the store; while it cannot be reached (the breaker is open, or the call fails), in the local store under
     * the policy's share, where a call decided by the fail mode {@code local} was charged. A call admitted by the fail
     * mode {@code open} was charged nowhere: its caller does not settle it.
     */
    @Override
    public CompletionStage<Long> settle(Policy policy, String key, long admittedAtMicros, int estimate, long actual) {
        DecisionStore.settlement(policy, estimate, actual);
        return storeElseLocal(() -> delegate.settle(policy, key, admittedAtMicros, estimate, actual),
                () -> local.settle(shares.windows(policy), key, admittedAtMicros, estimate, actual));
    }

    /** Gives back in the store, and where it cannot be reached in the local store, as {@link #settle} settles. */
    @Override
    public CompletionStage<Void> refund(Policy policy, String key, long atMicros, int cost) {
        return storeElseLocal(() -> delegate.refund(policy, key, atMicros, cost),
                () -> local.refund(shares.windows(policy), key, atMicros, cost));
    }

    /**
     * {@code remote} while the breaker lets calls through and it succeeds (the breaker told either way), else
     * {@code local}: where a call the fail mode {@code local} decided was charged.
     */
    private <T> CompletionStage<T> storeElseLocal(java.util.function.Supplier<CompletionStage<T>> remote,
            java.util.function.Supplier<CompletionStage<T>> local) {
        if (!breaker.allowRequest()) {
            return local.get();
        }
        long sentAt = breaker.now();
        CompletionStage<T> sent;
        try {
            sent = remote.get();
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        return sent.handle((value, error) -> {
            if (error == null) {
                breaker.success(sentAt);
                return CompletableFuture.completedFuture(value);
            }
            Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                    ? error.getCause()
                    : error;
            breaker.failure(cause);
            onError.accept(cause);
            return local.get();
        }).thenCompose(stage -> stage);
    }

    /**
     * Holds the key in the store, and in the local one too (a policy that fails {@code local} then decides there
     * within the hold as well); when the store cannot, the local hold answers.
     */
    @Override
    public CompletionStage<Long> hold(Policy policy, String key, long forMicros) {
        return held(policy, key, forMicros, false);
    }

    @Override
    public CompletionStage<Long> block(Policy policy, String key, long forMicros) {
        return held(policy, key, forMicros, true);
    }

    /** A hold (or a block: {@code unlessHeld}) kept in process too, so that the fail mode keeps it while the store is away. */
    private CompletionStage<Long> held(Policy policy, String key, long forMicros, boolean unlessHeld) {
        CompletionStage<Long> here = unlessHeld ? local.block(shares.windows(policy), key, forMicros)
                : local.hold(shares.windows(policy), key, forMicros);
        CompletionStage<Long> remote;
        try {
            remote = unlessHeld ? delegate.block(policy, key, forMicros) : delegate.hold(policy, key, forMicros);
        } catch (IllegalArgumentException e) {
            throw e;
        } catch (RuntimeException e) {
            remote = CompletableFuture.failedFuture(e);
        }
        return remote.handle((held, error) -> error == null ? CompletableFuture.completedFuture(held) : here)
                .thenCompose(stage -> stage);
    }

    @Override
    public CompletionStage<Long> heldFor(Policy policy, String key) {
        CompletionStage<Long> remote;
        try {
            remote = delegate.heldFor(policy, key);
        } catch (RuntimeException e) {
            remote = CompletableFuture.failedFuture(e);
        }
        return remote.handle((held, error) -> error == null ? CompletableFuture.completedFuture(held)
                : local.heldFor(shares.windows(policy), key)).thenCompose(stage -> stage);
    }

    /** Keeps the limits in the store and in the local one (read there while the store cannot answer). */
    @Override
    public CompletionStage<Void> learn(Policy policy, String key, java.util.List<dev.slidegate.api.Limit> limits,
            long forMicros) {
        CompletionStage<Void> here = local.learn(shares.windows(policy), key, limits, forMicros);
        CompletionStage<Void> remote;
        try {
            remote = delegate.learn(policy, key, limits, forMicros);
        } catch (IllegalArgumentException e) {
            throw e;
        } catch (RuntimeException e) {
            remote = CompletableFuture.failedFuture(e);
        }
        return remote.handle((done, error) -> error == null ? CompletableFuture.<Void> completedFuture(null) : here)
                .thenCompose(stage -> stage);
    }

    @Override
    public CompletionStage<java.util.List<dev.slidegate.api.Limit>> learned(Policy policy, String key) {
        CompletionStage<java.util.List<dev.slidegate.api.Limit>> remote;
        try {
            remote = delegate.learned(policy, key);
        } catch (RuntimeException e) {
            remote = CompletableFuture.failedFuture(e);
        }
        return remote.handle((limits, error) -> error == null ? CompletableFuture.completedFuture(limits)
                : local.learned(shares.windows(policy), key)).thenCompose(stage -> stage);
    }

    /**
     * Renews the leases in the store and in the local share (where the fail mode took those it took while the store
     * could not answer); a lease is lost when neither holds it.
     */
    @Override
    public CompletionStage<java.util.List<Long>> renew(Policy policy, String key, java.util.List<Long> leases) {
        return both(policy, key, leases, true);
    }

    /** Ends the leases in the store and in the local share, wherever the call took its lease. */
    @Override
    public CompletionStage<java.util.List<Long>> leave(Policy policy, String key, java.util.List<Long> leases) {
        return both(policy, key, leases, false);
    }

    /**
     * Queues in the store only: while it cannot answer (or its breaker is open) this fails, and the waiting calls are
     * decided by their fail mode (the layer above asks {@link #acquire} again).
     */
    @Override
    public CompletionStage<Turn> queue(Policy policy, String key, java.util.List<Long> tickets, long lapseMicros) {
        if (breaker.state() != Breaker.State.CLOSED) {
            return CompletableFuture.failedFuture(new StoreUnavailableException(
                    "the " + delegate.name() + " store is skipped while it recovers", null));
        }
        try {
            return delegate.queue(policy, key, tickets, lapseMicros);
        } catch (IllegalArgumentException e) {
            throw e;
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletionStage<Void> unqueue(Policy policy, String key, java.util.List<Long> tickets) {
        try {
            return delegate.unqueue(policy, key, tickets);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private CompletionStage<java.util.List<Long>> both(Policy policy, String key, java.util.List<Long> leases, boolean renew) {
        Policy here = shares.windows(policy);
        CompletionStage<java.util.List<Long>> there = renew ? local.renew(here, key, leases) : local.leave(here, key, leases);
        CompletionStage<java.util.List<Long>> remote;
        try {
            remote = renew ? delegate.renew(policy, key, leases) : delegate.leave(policy, key, leases);
        } catch (RuntimeException e) {
            remote = CompletableFuture.failedFuture(e);
        }
        return remote.handle((lost, error) -> error == null ? lost : leases)
                .thenCombine(there, (lostThere, lostHere) -> lostThere.stream().filter(lostHere::contains).toList());
    }

    /** When the last out-of-memory warning was logged (nanoTime), or none yet. */
    private final java.util.concurrent.atomic.AtomicLong oomWarnedAt = new java.util.concurrent.atomic.AtomicLong(NEVER);
    private static final long NEVER = Long.MIN_VALUE;
    private static final long OOM_WARNING_INTERVAL = 60_000_000_000L;
    private static final java.util.logging.Logger LOG = java.util.logging.Logger.getLogger("dev.slidegate");

    private void warnOutOfMemory(Throwable cause) {
        long now = breaker.now();
        long last = oomWarnedAt.get();
        if ((last != NEVER && now - last < OOM_WARNING_INTERVAL) || !oomWarnedAt.compareAndSet(last, now)) {
            return;
        }
        LOG.warning(
                "The " + delegate.name() + " store refused a decision for lack of memory (" + Secrets.redact(cause.getMessage())
                        + "): each decision it cannot record is decided by its policy's fail mode, while the windows it holds "
                        + "go on deciding there (said once a minute). " + WriteRefusals.explain(cause.getMessage()));
    }

    /**
     * What a late answer to a call of several policies ({@link #acquireAll}) says of one of its asks: its decision when the
     * store admitted every one of them in one step (each was charged), else nothing (refused, or decided one by one: what
     * the fail mode admits is charged, as without an answer).
     */
    private static AnsweredLate answerTo(AnsweredLate call, List<Asked> asks, Asked ask) {
        int i = 0;
        while (asks.get(i) != ask) {
            i++;
        }
        int at = i;
        return () -> call.lateAnswer().thenApply(answer -> {
            if (answer instanceof List<?> all && all.size() == asks.size()) {
                return all.get(at);
            }
            return asks.size() == 1 && answer instanceof Decision d ? d : null;
        });
    }

    private CompletionStage<Decision> fallback(Policy policy, String key, int cost, long maxWaitMicros, boolean slot,
            Throwable cause, AnsweredLate late) {
        return switch (policy.failMode()) {
            case OPEN -> {
                yield CompletableFuture
                        .completedFuture(new Decision(policy, true, -1, 0, 0, LimitState.untouched(policy.limits()), true));
            }
            case CLOSED -> CompletableFuture.failedFuture(new StoreUnavailableException(
                    "the " + delegate.name() + " store cannot decide and policy '" + policy.name() + "' fails closed"
                            + (cause == null ? " (skipped while it recovers)" : ": " + cause.getMessage()),
                    cause));
            case LOCAL -> shares.decide(policy, key, cost, maxWaitMicros, slot, late);
        };
    }

    /** The late answer a failure may still have (a store that answered after its budget), or null. */
    private static AnsweredLate answeredLate(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof AnsweredLate late) {
                return late;
            }
        }
        return null;
    }

    @Override
    public String name() {
        return delegate.name();
    }

    /** What the store it falls back from offers (the in-process store it falls back to offers everything). */
    @Override
    public java.util.Set<Capability> offers() {
        return delegate.offers();
    }

    /**
     * Forgets the local window of {@code key}, so that a reset reaches the fail modes' share too, with what the store
     * said of it and what the fail mode owes it.
     */
    public void forget(Policy policy, String key) {
        shares.forget(policy, key);
    }
}
