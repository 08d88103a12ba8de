package dev.slidegate.engine;

import java.util.List;

import dev.slidegate.api.Decision;
import dev.slidegate.api.MissingRateLimitKeyException;
import dev.slidegate.api.RateLimitExceededException;
import dev.slidegate.api.StoreUnavailableException;

/**
 * What became of one call, as the {@link Decider} says it, with nothing of HTTP in it: each entry
 * point adapts it to its caller. The request filter and the path limiter turn it into RateLimit fields
 * and a problem body (`entry/HttpOutcomes`), the interceptor into an exception (its {@link #failure()}),
 * the {@link dev.slidegate.api.RateLimiter} into a {@link Decision}.
 */
public sealed interface Outcome {

    /** Every decision made for the call, in the order of its policies (fewer when one refused or failed). */
    List<Decision> decisions();

    /** What a Java caller gets instead of the call; {@code null} when admitted. */
    Throwable failure();

    default boolean admitted() {
        return this instanceof Admitted;
    }

    /**
     * Every policy admitted the call (a dry-run policy admits what it would have refused).
     *
     * @param leases the leases the call holds while it runs (policies with {@code max-in-flight}), or {@code null}: who
     *        runs the call ends them when it is done ({@link #end})
     * @param settling what the call settles when it is done (policies with {@code settle}), or {@code null}
     * @param released for a call that waited for a permit at a later instant, or that was admitted at once before its
     *        request was dispatched ({@link Decider#decideAhead}), where one of its policies may wait: the earliest instant
     *        of its permits, and what deciding it again needs, should the thread that runs it take it up later than the
     *        late tolerance ({@link Decider#late}); else {@code null}
     */
    record Admitted(List<Decision> decisions, Leases.Held leases, Settlements.Settling settling, Call released)
            implements
                Outcome {

        Admitted(List<Decision> decisions, Leases.Held leases, Settlements.Settling settling) {
            this(decisions, leases, settling, null);
        }

        Admitted(List<Decision> decisions, Leases.Held leases) {
            this(decisions, leases, null, null);
        }

        Admitted(List<Decision> decisions) {
            this(decisions, null, null, null);
        }

        /** This admission holding {@code taken} while the call runs. */
        Admitted withLeases(Leases.Held taken) {
            return new Admitted(decisions, taken, settling, released);
        }

        /** This admission settling with {@code s} when the call ends. */
        Admitted withSettling(Settlements.Settling s) {
            return new Admitted(decisions, leases, s, released);
        }

        @Override
        public Throwable failure() {
            return null;
        }

        /** Whether the call's end must be told ({@link #end}): it holds leases, or settles. */
        public boolean endMatters() {
            return leases != null || settling != null;
        }

        /** The call is done and succeeded. */
        public void end() {
            end(false);
        }

        /**
         * The call is done (answered, failed, cancelled, its client gone): its leases end, and it is settled with the usage
         * it reported ({@code failed}: it failed or was cancelled). Again: nothing.
         */
        public void end(boolean failed) {
            end(failed, failed ? dev.slidegate.core.CountWhen.UNKNOWN : 200, null);
        }

        /**
         * As {@link #end(boolean)}, with how the call returned, for policies that count only some outcomes
         * ({@code count-when}): the {@code status} its result or exception says ({@link dev.slidegate.core.CountWhen}),
         * and the exception it ended with, or {@code null}.
         */
        public void end(boolean failed, int status, Throwable thrown) {
            if (leases != null) {
                leases.end();
            }
            if (settling != null) {
                settling.settle(failed, status, thrown);
            }
        }

        /**
         * The call will not run on this admission (it is decided again): its leases end, and what it charged to settle comes
         * back.
         */
        void notRun() {
            if (leases != null) {
                leases.end();
            }
            if (settling != null) {
                settling.notRun();
            }
        }
    }

    /** A policy refused the call; later policies were not asked. */
    record Refused(List<Decision> decisions, RateLimitExceededException failure) implements Outcome {

        /** The refusing decision. */
        public Decision decision() {
            return failure.decision();
        }
    }

    /**
     * Every policy admitted the call for a later instant, and its HTTP client went away while it waited: the call does
     * not run (its permits stay charged).
     */
    record Abandoned(List<Decision> decisions) implements Outcome {

        @Override
        public Throwable failure() {
            return new java.util.concurrent.CancellationException(
                    "the client went away while the call waited for its permit of policy '"
                            + decisions.get(0).policy().name() + "'");
        }
    }

    /** A policy found no key for the call (a header, parameter or argument it needs is missing): nothing charged. */
    record KeyMissing(MissingRateLimitKeyException failure) implements Outcome {

        @Override
        public List<Decision> decisions() {
            return List.of();
        }
    }

    /** The store could not decide and the policy's fail mode is {@code closed}. */
    record StoreUnavailable(List<Decision> decisions, StoreUnavailableException failure) implements Outcome {
    }

    /** A key or plan resolver failed (a bug of the service), logged once where it happened. */
    record Failed(List<Decision> decisions, String policy, RuntimeException failure) implements Outcome {
    }

    /** For callers that throw: nothing when admitted, else the failure. */
    default void orThrow() {
        Throwable f = failure();
        if (f instanceof RuntimeException e) {
            throw e;
        }
        if (f instanceof Error e) {
            throw e;
        }
        if (f != null) {
            throw new IllegalStateException(f);
        }
    }
}
