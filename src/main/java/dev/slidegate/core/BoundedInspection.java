package dev.slidegate.core;

import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Policy;

/**
 * The admin's reads of a store, at most {@code most} in flight at once whoever asks (listings, rankings,
 * live pages); the rest wait their turn in order. This bounds what the admin can put on the store at
 * any moment, so that decisions never queue behind it, however many operators look. Decisions take
 * the other SPI ({@link DecisionStore}) and never pass here.
 */
public final class BoundedInspection implements StoreInspection {

    private final int most;
    private int inFlight;
    private final ArrayDeque<Runnable> waiting = new ArrayDeque<>();
    private final StoreInspection delegate;

    public BoundedInspection(StoreInspection delegate, int most) {
        this.delegate = delegate;
        if (most < 1) {
            throw new IllegalArgumentException("at least one call must be allowed, was " + most);
        }
        this.most = most;
    }

    /** Calls now waiting for a turn (for tests and the admin's own view). */
    public synchronized int waiting() {
        return waiting.size();
    }

    private <T> CompletionStage<T> bounded(Supplier<CompletionStage<T>> call) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Runnable run = () -> {
            CompletionStage<T> stage;
            try {
                stage = call.get();
            } catch (RuntimeException e) {
                stage = CompletableFuture.failedFuture(e);
            }
            stage.whenComplete((value, error) -> {
                release();
                if (error != null) {
                    result.completeExceptionally(error);
                } else {
                    result.complete(value);
                }
            });
        };
        synchronized (this) {
            if (inFlight >= most) {
                waiting.add(run);
                return result;
            }
            inFlight++;
        }
        run.run();
        return result;
    }

    private void release() {
        Runnable next;
        synchronized (this) {
            next = waiting.poll();
            if (next == null) {
                inFlight--;
                return;
            }
        }
        // the finished call's turn passes on; a call that completes at once (the memory store) would pass
        // its own turn on from inside this one, so turns passed on this thread run in a loop, not nested
        ArrayDeque<Runnable> passing = PASSING.get();
        if (passing != null) {
            passing.add(next);
            return;
        }
        passing = new ArrayDeque<>();
        passing.add(next);
        PASSING.set(passing);
        try {
            Runnable r;
            while ((r = passing.poll()) != null) {
                r.run();
            }
        } finally {
            PASSING.remove();
        }
    }

    private static final ThreadLocal<ArrayDeque<Runnable>> PASSING = new ThreadLocal<>();

    @Override
    public CompletionStage<Decision> peek(Policy policy, String key) {
        return bounded(() -> delegate.peek(policy, key));
    }

    @Override
    public CompletionStage<KeyPage> keys(Policy policy, String cursor, int limit) {
        return bounded(() -> delegate.keys(policy, cursor, limit));
    }

    @Override
    public CompletionStage<Long> oldestLeaseAge(Policy policy, String key) {
        return bounded(() -> delegate.oldestLeaseAge(policy, key));
    }

    @Override
    public CompletionStage<Long> count(Policy policy) {
        return bounded(() -> delegate.count(policy));
    }

    @Override
    public CompletionStage<Map<String, Long>> counts(Collection<Policy> policies) {
        return bounded(() -> delegate.counts(policies));
    }

    @Override
    public CompletionStage<Void> reset(Policy policy, String key) {
        return bounded(() -> delegate.reset(policy, key));
    }
}
