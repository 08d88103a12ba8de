package dev.slidegate.engine;

import java.util.concurrent.Executor;

/**
 * What the engine needs of the threads it runs on (issue 57), so that nothing below the entry points sees Vert.x:
 * `entry/VertxThreads` in the service, {@link #INLINE} where a test runs the engine without a server.
 */
public interface Threads {

    /**
     * Where a continuation of the current caller runs: on its event-loop context (at once when already there), inline off
     * one.
     */
    Executor callers();

    /** Whether the current thread may block (a worker, not an event loop). */
    boolean mayBlock();

    /** Whether the current thread is an event loop's. */
    boolean onEventLoop();

    /**
     * Runs {@code task} once the current event-loop turn is over, on that loop.
     *
     * @return {@code false} when the current thread is not on an event loop (then nothing is run)
     */
    boolean afterThisTurn(Runnable task);

    /** Timers that fire on the context that set them. */
    Waits.Timer timer();

    /** Every continuation inline, every thread may block, no event loop, no timers. */
    Threads INLINE = new Threads() {
        @Override
        public Executor callers() {
            return Runnable::run;
        }

        @Override
        public boolean mayBlock() {
            return true;
        }

        @Override
        public boolean onEventLoop() {
            return false;
        }

        @Override
        public boolean afterThisTurn(Runnable task) {
            return false;
        }

        @Override
        public Waits.Timer timer() {
            throw new UnsupportedOperationException("these threads have no timers: give the component its own");
        }
    };
}
