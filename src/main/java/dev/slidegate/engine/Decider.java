package dev.slidegate.engine;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

import jakarta.inject.Singleton;

import dev.slidegate.api.PlanResolver;
import dev.slidegate.api.Policy;
import dev.slidegate.core.DecisionStore;
import dev.slidegate.core.Overrides;
import dev.slidegate.metrics.WaitStats;

/**
 * Where every entry point (the interceptor, the request filter, the path limiter and the
 * {@link dev.slidegate.api.RateLimiter}) builds one call and runs it through the {@link Chain} of stages; the entry points
 * only adapt its {@link Outcome} to their callers. Nothing here speaks HTTP: the request, when there is one, is only where
 * keys and plans are read.
 *
 * <p>
 * For one call it resolves every policy's key and plan first (so a missing key charges nothing) and the override in force
 * ({@link Chain#ask}), then runs the chain. The outcome never fails ({@link Failures}).
 */
@Singleton
public class Decider {

    private final CallerKeys keys;
    private final PlanResolver plans;
    /** The stages every call runs through. */
    private final Chain chain;
    /** The callers' threads: where an outcome completes, whether a caller may block. */
    private final Threads threads;

    /** A decider off any event loop ({@link Threads#INLINE}), as a test runs it. */
    Decider(CallerKeys keys, DecisionStore store, PlanResolver plans, Admission admission, Overrides overrides, Waits waits,
            WaitStats waitStats, Upstreams upstreams, Leases leases) {
        this(keys, store, plans, admission, overrides, waits, waitStats, upstreams, leases, Threads.INLINE,
                dev.slidegate.core.PermitInstants.unknown());
    }

    /**
     * @param instants where the store's clock falls on the instance's, as its answers said: where a held call's permit
     *        lies, however late its own answer came
     */
    @jakarta.inject.Inject
    Decider(CallerKeys keys, DecisionStore store, PlanResolver plans, Admission admission, Overrides overrides, Waits waits,
            WaitStats waitStats, Upstreams upstreams, Leases leases, Threads threads,
            dev.slidegate.core.PermitInstants instants) {
        this.threads = threads;
        this.keys = keys;
        this.plans = plans;
        this.chain = new Chain(store, admission, overrides, waits, waitStats, upstreams, leases, instants);
    }

    /**
     * Decides a call of a method with {@code policies}, never blocking. The outcome completes on the
     * caller's Vert.x context (inline when the store answers there), so what follows sees its request.
     *
     * @param args the call's arguments (empty for a request decided before dispatch)
     * @param rc the HTTP request, or {@code null} outside HTTP
     */
    public CompletionStage<Outcome> decide(List<MethodPolicy> policies, Object[] args, Exchange rc) {
        return decide(policies, args, rc, threads.callers(), false);
    }

    /**
     * {@link #decide(List, Object[], Exchange)} for a request decided before it is dispatched to the thread that runs
     * its endpoint (a request filter, the router): where one of its policies may wait, a call admitted at once carries the
     * instant it was asked ({@link Outcome.Admitted#released}), as a held call carries its permit's, so that the thread
     * that takes it up later than the late tolerance decides it again ({@link #late}) instead of running it beside the
     * calls admitted after it. The clock is read only for such calls.
     */
    public CompletionStage<Outcome> decideAhead(List<MethodPolicy> policies, Object[] args, Exchange rc) {
        return decide(policies, args, rc, threads.callers(), true);
    }

    /**
     * Decides a call whose key the code gives ({@link dev.slidegate.api.RateLimiter}): the same plans
     * (read from {@code rc} when the call happens during a request), overrides, counting and logging as
     * every other entry point; completes wherever the store answers.
     */
    public CompletionStage<Outcome> decide(MethodPolicy mp, String key, int cost, Exchange rc) {
        return decide(mp, key, cost, -1, rc, false);
    }

    /**
     * As {@link #decide(MethodPolicy, String, int, Exchange)}, waiting up to {@code maxWait} microseconds for the
     * permit ({@code -1}: the policy's {@code max-wait}); the outcome completes when the call may proceed, on the
     * caller's Vert.x context with {@code onCallersContext} (never for a caller that blocks until it completes: its
     * context may be the very thread that waits), else wherever the store or the timer answers.
     */
    public CompletionStage<Outcome> decide(MethodPolicy mp, String key, int cost, long maxWait, Exchange rc,
            boolean onCallersContext) {
        Ask ask;
        try {
            Policy policy = mp.policyFor(plans, new Object[] { key }, rc);
            ask = chain.ask(mp, policy, key, cost, maxWait < 0 ? policy.maxWaitMicros() : maxWait);
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(Failures.of(e, mp, List.of()));
        }
        Ask[] asks = { ask };
        return chain.run(asks, onCallersContext ? threads.callers() : Runnable::run, rc,
                chain.wait.start(asks), false);
    }

    /**
     * Decides one call of several policies whose keys and costs the caller gives (Envoy's rate-limit service: one
     * request, a descriptor each): the same overrides, counting and logging as every other entry point, the enforcing
     * policies decided together (all charged or none); never waits for a permit. Completes wherever the store answers.
     */
    public CompletionStage<Outcome> decide(List<MethodPolicy> policies, List<String> keys, int[] costs) {
        Ask[] asks = new Ask[policies.size()];
        try {
            for (int i = 0; i < asks.length; i++) {
                MethodPolicy mp = policies.get(i);
                asks[i] = chain.ask(mp, mp.policy(), keys.get(i), costs[i], 0);
            }
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(Failures.of(e, policies.get(0), List.of()));
        }
        return chain.run(asks, Runnable::run, null, chain.wait.start(asks), false);
    }

    /**
     * Decides and waits for the outcome, for a method that returns a plain value. Waiting is only
     * allowed off the event loop; an in-process decision never waits.
     *
     * @throws IllegalStateException on an event loop when the store has not answered at once
     */
    public Outcome decideAndWait(List<MethodPolicy> policies, Object[] args, Exchange rc) {
        // the waiting thread is the caller: continue on whichever thread the store answers
        CompletableFuture<Outcome> outcome = decide(policies, args, rc, Runnable::run, false).toCompletableFuture();
        if (!outcome.isDone() && !threads.mayBlock()) {
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
    public boolean late(Outcome o) {
        return chain.wait.late(o);
    }

    /**
     * Decides again, as a new arrival, a held call whose runner took it up too late ({@link #late}): it does not run on
     * its first admission (its leases end, what it charged to settle comes back; its permits stay charged, as for a call
     * that woke late), and it may wait what is left of its max-wait. Completes on the caller's Vert.x context.
     */
    public CompletionStage<Outcome> again(Outcome.Admitted a) {
        return chain.wait.again(a, threads.callers(), true);
    }

    /**
     * For a caller that runs the call on this very thread once this returns: {@code o}, or, while it admits a held call
     * taken up too late ({@link #late}), what deciding it again answers. It waits for a new permit only where this thread
     * may block; on an I/O thread the call is decided again without waiting.
     *
     * @throws IllegalStateException on an I/O thread when the store has not answered at once
     */
    public Outcome startingNow(Outcome o) {
        return late(o) ? startingNow(o, threads.mayBlock()) : o;
    }

    /** {@link #startingNow(Outcome)} on a thread that may block ({@code mayWait}), or not. */
    public Outcome startingNow(Outcome o, boolean mayWait) {
        while (late(o)) {
            Outcome.Admitted a = (Outcome.Admitted) o;
            CompletableFuture<Outcome> next = chain.wait.again(a, Runnable::run, mayWait).toCompletableFuture();
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

    private CompletionStage<Outcome> decide(List<MethodPolicy> policies, Object[] args, Exchange rc, Executor resume,
            boolean ahead) {
        Ask[] asks = new Ask[policies.size()];
        try {
            for (int i = 0; i < asks.length; i++) { // keys and plans are read now, on the caller's thread, where the request is
                MethodPolicy mp = policies.get(i);
                Policy policy = mp.policyFor(plans, args, rc);
                asks[i] = chain.ask(mp, policy, keys.resolve(mp, args, rc), mp.costOf(args, rc), policy.maxWaitMicros());
            }
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(Failures.of(e, policies.get(0), List.of()));
        }
        return chain.run(asks, resume, rc, chain.wait.start(asks), ahead);
    }
}
