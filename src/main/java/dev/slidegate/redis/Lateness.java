package dev.slidegate.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongSupplier;

import dev.slidegate.core.AnsweredLate;
import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Response;
import io.vertx.redis.client.impl.types.ErrorType;

/**
 * The deadlines of the decisions in flight, and the rule that tells a late Redis from a down one.
 *
 * <p>
 * <b>Late is not down.</b> A decision that has no answer after {@code timeout} fails (and its fail
 * mode decides) only when Redis has answered <em>nothing</em> for longer than its patience, or the
 * connection failed. The patience is the budget, or twice the longest answer time of the last seconds
 * when that is longer (a busy machine makes every answer late, and a silence as long as the answers
 * already take is no news), never more than {@code lateLimit}. While other answers keep arriving, Redis
 * is up and this one is only late (the machine or this process is busy, the event loop has not read it
 * yet): it waits on, up to {@code lateLimit}. So does a decision whose deadline itself ran late by half
 * a budget or more (this process was not running: a GC pause, a starved CPU). A killed Redis or a
 * refused connection fails at once; a frozen one once the patience has passed since its last answer.
 *
 * <p>
 * One timer thread, with no wake-up per call: every deadline is the same distance ahead, so a new one
 * never becomes the earliest, and an answered call's deadline is removed from the queue at once. The
 * thread ends when idle, so a store that is dropped leaves nothing running. Time is read from the
 * monotonic clock given ({@code System::nanoTime} in the service).
 */
final class Lateness implements AutoCloseable {

    private final ScheduledThreadPoolExecutor deadlines;
    private final LongSupplier nanoTime;
    private final Duration timeout;
    private final long timeoutNanos;
    private final long lateLimitNanos;
    /** When the last answer of any call arrived: the proof that Redis is up. */
    private volatile long lastAnswer;
    /** The longest answer times of the last few seconds: how long a silence is still only lateness. */
    private final RecentLatency recent;

    /**
     * @param timeout the budget: with no answer from Redis at all for this long, a decision fails
     * @param lateLimit how long a decision waits at most while Redis answers others (at least the budget)
     */
    Lateness(Duration timeout, Duration lateLimit, LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
        this.timeout = timeout;
        this.timeoutNanos = timeout.toNanos();
        this.lateLimitNanos = Math.max(timeoutNanos, lateLimit.toNanos());
        long now = nanoTime.getAsLong();
        this.lastAnswer = now;
        this.recent = new RecentLatency(TimeUnit.SECONDS.toNanos(5), now);
        this.deadlines = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "slidegate-redis-deadlines");
            t.setDaemon(true);
            return t;
        });
        deadlines.setRemoveOnCancelPolicy(true);
        deadlines.setKeepAliveTime(10, TimeUnit.SECONDS); // the thread ends when no decision is in flight for 10 s
        deadlines.allowCoreThreadTimeOut(true);
    }

    /** The late limit: how long a decision waits at most, also the budget of admin reads and resets. */
    Duration lateLimit() {
        return Duration.ofNanos(lateLimitNanos);
    }

    long now() {
        return nanoTime.getAsLong();
    }

    /** Redis answered something (a reply to a call made {@code latency} ago, or {@code NOSCRIPT}). */
    void heard(long latency) {
        heard(nanoTime.getAsLong(), latency);
    }

    private void heard(long now, long latency) {
        lastAnswer = now;
        if (latency >= 0) {
            recent.record(now, latency);
        }
    }

    /** A call for {@code script}, its deadline set now. */
    <T> Call<T> start(LuaScript script) {
        return start(script, 0);
    }

    /**
     * A call for {@code script} whose caller may wait {@code budgetNanos} for it (a policy's {@code max-wait}): a silent
     * Redis is waited for that long, up to the late limit, before the call fails, since its caller waits that long for a
     * permit anyway. A late answer then decides, rather than the fail mode (issue 56).
     */
    <T> Call<T> start(LuaScript script, long budgetNanos) {
        Call<T> call = new Call<>(script, Math.min(lateLimitNanos, Math.max(0, budgetNanos)));
        call.schedule(call.sentAt, Math.max(timeoutNanos, call.budget));
        return call;
    }

    /** Stops the deadline thread once the deadlines already set have run. */
    @Override
    public void close() {
        deadlines.shutdown();
    }

    boolean terminated() {
        return deadlines.isTerminated();
    }

    /**
     * How long Redis may stay silent before a decision waiting on it fails: twice the longest answer
     * time of the last seconds, at least the budget ({@code timeout}), at most the late limit. A Redis
     * that answers in a millisecond is given up after the budget; one that a busy machine has made
     * answer in 80 ms is given 160 ms, like a retransmission timeout follows the round trips it sees.
     */
    private long patience(long now) {
        return Math.min(lateLimitNanos, Math.max(timeoutNanos, 2 * recent.max(now)));
    }

    static Context eventLoopContext() {
        Context c = Vertx.currentContext();
        return c != null && c.isEventLoopContext() && Context.isOnEventLoopThread() ? c : null;
    }

    /** An error Redis itself sent (WRONGTYPE, NOSCRIPT, OOM...), as opposed to a connection that failed. */
    static boolean isErrorReply(Throwable cause) {
        return cause instanceof ErrorType e && !"CONNECTION_CLOSED".equals(e.getMessage());
    }

    /**
     * One decision in flight and its deadline. At the deadline it fails only if Redis has been silent
     * for longer than its recent answer times allow ({@link #patience}) and the deadline itself ran on
     * time; otherwise it waits on, up to the late limit.
     */
    final class Call<T> implements Runnable {
        final CompletableFuture<T> result = new CompletableFuture<>();
        final LuaScript script;
        final long sentAt = nanoTime.getAsLong();
        /** The event loop the call was made on, whose connection (and reads) it waits for; null off an event loop. */
        final Context eventLoop = eventLoopContext();
        /** The connection it was sent on: the one its deadline gives up. */
        volatile EventLoopConnections.Sent sent;

        /** Sent on {@code s}: the connection its deadline gives up, and which stays open for its budget. */
        void sentOn(EventLoopConnections.Sent s) {
            sent = s;
            if (s != null && budget > timeoutNanos) {
                s.patientUntil(sentAt + budget);
            }
        }

        /** How long its caller waits for it anyway (its max-wait, within the late limit): a silence this long is patience. */
        final long budget;
        private volatile ScheduledFuture<?> deadline;
        /** Set when the deadline failed the call: its answer, should it still come. */
        private volatile CompletableFuture<Object> late;
        private long due;

        private Call(LuaScript script, long budget) {
            this.script = script;
            this.budget = budget;
        }

        private void schedule(long now, long in) {
            due = now + in;
            deadline = deadlines.schedule(this, in, TimeUnit.NANOSECONDS);
        }

        /**
         * The deadline. On an event loop the verdict is passed to that loop first: it reads whatever
         * answers are waiting in its sockets before it runs the verdict, so an answer that arrived but
         * was not read yet (a busy process) is never taken for silence.
         */
        @Override
        public void run() {
            if (result.isDone()) {
                return;
            }
            if (eventLoop == null) {
                judge(nanoTime.getAsLong());
                return;
            }
            long posted = nanoTime.getAsLong();
            eventLoop.runOnContext(v -> judge(posted));
        }

        /** @param posted when the deadline handed the verdict to the event loop (its wait there is the loop's own lag) */
        private void judge(long posted) {
            if (result.isDone()) {
                return;
            }
            long now = nanoTime.getAsLong();
            long patience = Math.max(budget, patience(now));
            long silentSince = Math.max(lastAnswer, sentAt);
            boolean silent = now - silentSince >= patience;
            boolean paused = posted - due >= timeoutNanos / 2 || now - posted >= timeoutNanos / 2;
            boolean tooLate = now - sentAt >= lateLimitNanos;
            if (!tooLate && (!silent || paused)) {
                long in = silent ? timeoutNanos : silentSince + patience - now;
                schedule(now, Math.max(in, 1_000_000L));
                return;
            }
            String why = tooLate
                    ? "Redis did not answer " + script.name() + " within " + lateLimitNanos / 1_000_000
                            + " ms (slidegate.redis.late-limit)"
                    : "Redis answered nothing for " + (now - silentSince) / 1_000_000 + " ms while " + script.name()
                            + " waited (slidegate.redis.timeout " + timeout.toMillis() + " ms"
                            + (budget > timeoutNanos ? ", its caller's max-wait " + budget / 1_000_000 + " ms" : "")
                            + "; its answers took up to " + recent.max(now) / 1_000_000 + " ms lately)";
            Unanswered failure = new Unanswered(why);
            late = failure.answer; // before the failure: a reply from now on completes its answer
            if (result.completeExceptionally(failure)) {
                listenOn(failure.answer);
                if (sent != null) {
                    sent.patientUntil(now + timeoutNanos);
                    sent.giveUpConnection(now); // a connection that does not answer is not used again
                }
            }
        }

        /**
         * Its answer is listened for one more budget (so that a permit the fail mode admits is not charged twice), then
         * taken for none, on its event loop where it has one, as its failure was.
         */
        private void listenOn(CompletableFuture<Object> answer) {
            Runnable none = () -> answer.complete(null);
            Runnable inTurn = eventLoop == null ? none : () -> eventLoop.runOnContext(v -> none.run());
            try {
                deadlines.schedule(inTurn, timeoutNanos, TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.RejectedExecutionException closed) { // the store is closing
                none.run();
            }
        }

        /** Completes the call with Redis's reply, read by {@code decode}; if its deadline came first, its late answer. */
        void complete(AsyncResult<Response> reply, Function<Response, T> decode) {
            ScheduledFuture<?> d = deadline;
            if (d != null) {
                d.cancel(false);
            }
            if (reply.succeeded() || isErrorReply(reply.cause())) {
                long now = nanoTime.getAsLong();
                heard(now, now - sentAt); // a reply, even an error reply, is Redis answering
            } else if (sent != null) {
                sent.giveUpConnection(); // the connection failed: the next decision on this event loop opens another
            }
            CompletableFuture<Object> answeredLate = late;
            if (answeredLate != null) {
                answeredLate(answeredLate, reply, decode);
                return;
            }
            if (reply.failed()) {
                result.completeExceptionally(new RedisStoreException(
                        "Redis failed on " + script.name() + ": " + reply.cause().getMessage(), reply.cause()));
                return;
            }
            try {
                result.complete(decode.apply(reply.result()));
            } catch (RuntimeException e) {
                result.completeExceptionally(
                        new RedisStoreException("Redis answered " + script.name() + " unexpectedly: " + reply.result(), e));
            }
        }
    }

    /** A reply to a call its deadline failed: what Redis decided after all completes its answer. */
    private static <T> void answeredLate(CompletableFuture<Object> answer, AsyncResult<Response> reply,
            Function<Response, T> decode) {
        if (reply.failed()) {
            answer.complete(null);
            return;
        }
        try {
            answer.complete(decode.apply(reply.result()));
        } catch (RuntimeException e) {
            answer.complete(null);
        }
    }

    /** A decision that had no answer by its deadline; its answer may still come ({@link AnsweredLate}). */
    static final class Unanswered extends RedisStoreException implements AnsweredLate {
        final CompletableFuture<Object> answer = new CompletableFuture<>();

        Unanswered(String message) {
            super(message, null);
        }

        @Override
        public java.util.concurrent.CompletionStage<Object> lateAnswer() {
            return answer;
        }
    }
}
