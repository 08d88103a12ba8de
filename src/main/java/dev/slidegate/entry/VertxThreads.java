package dev.slidegate.entry;

import java.util.concurrent.Executor;

import jakarta.inject.Singleton;

import dev.slidegate.engine.Threads;
import dev.slidegate.engine.Waits;
import io.quarkus.runtime.BlockingOperationControl;
import io.vertx.core.Context;
import io.vertx.core.Vertx;

/** The engine's {@link Threads} on Quarkus' Vert.x: callers' contexts, its blocking rule, its timers. */
@Singleton
public class VertxThreads implements Threads {

    private final Vertx vertx;

    /** @param vertx for timers ({@code null}: none, as in a test that brings its own) */
    public VertxThreads(Vertx vertx) {
        this.vertx = vertx;
    }

    @Override
    public Executor callers() {
        Context caller = Vertx.currentContext();
        if (caller == null) {
            return Runnable::run;
        }
        return command -> {
            if (Vertx.currentContext() == caller) {
                command.run();
            } else {
                caller.runOnContext(v -> command.run());
            }
        };
    }

    @Override
    public boolean mayBlock() {
        return BlockingOperationControl.isBlockingAllowed();
    }

    @Override
    public boolean onEventLoop() {
        return Vertx.currentContext() != null && Context.isOnEventLoopThread();
    }

    @Override
    public boolean afterThisTurn(Runnable task) {
        Context loop = Vertx.currentContext();
        if (loop == null || !Context.isOnEventLoopThread()) {
            return false;
        }
        loop.runOnContext(v -> task.run());
        return true;
    }

    @Override
    public Waits.Timer timer() {
        return (delay, task) -> vertx.setTimer(Math.max(1, (delay + 999_999) / 1_000_000), id -> task.run());
    }
}
