package dev.slidegate.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.EventExecutor;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.impl.VertxInternal;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisConnection;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;
import io.vertx.redis.client.impl.PooledRedisConnection;
import io.vertx.redis.client.impl.RedisStandaloneConnection;

/**
 * Sends each request made on a Vert.x event loop over a connection of that event loop's own, taken
 * from the client's pool once and kept: the request is written and its answer read on the caller's
 * thread, with no pool hand-off per request and no hop to another event loop (every decision of an
 * HTTP request is made on its event loop). Requests on other threads go through the pool as before.
 * A connection that fails or closes is given up; the next request on that event loop opens another.
 * For a single Redis server only: a cluster client keeps routing every request itself.
 */
final class EventLoopConnections {

    /** One event loop's connection, or its opening; {@code dead} once it failed or closed. */
    private static final class Slot {
        final Future<RedisConnection> connection;
        volatile boolean dead;
        boolean closed; // under the slot's monitor
        /** Until when (the deadlines' clock) a call sent on it may still wait for its answer: its budget (max-wait). */
        volatile long patientUntil = Long.MIN_VALUE;

        Slot(Future<RedisConnection> connection) {
            this.connection = connection;
        }
    }

    private final Redis client;
    private final boolean pin;
    private final ThreadLocal<Slot> byEventLoop = new ThreadLocal<>();

    EventLoopConnections(Redis client, boolean pin) {
        this.client = client;
        this.pin = pin;
    }

    /** A request on its way: its answer, and how to give up the connection it went on. */
    record Sent(Future<Response> answer, Slot slot) {

        /**
         * Gives up the event loop's connection this request was sent on (after a real timeout: a
         * connection that does not answer is not used again; the next request opens another). Nothing
         * for a pooled send, whose connection the pool manages.
         */
        void giveUpConnection() {
            giveUpConnection(Long.MIN_VALUE);
        }

        /**
         * As {@link #giveUpConnection()} at {@code now} (the deadlines' clock): no request is sent on it any more, and it
         * is closed once no call sent on it may still wait for its answer (a call of a policy with max-wait, whose
         * budget outlasts this call's), so that a late answer still reaches those calls.
         */
        void giveUpConnection(long now) {
            if (slot != null && !slot.dead) { // once per slot: every call in flight on it may time out at once
                slot.dead = true;
                long waitNanos = now == Long.MIN_VALUE ? 0 : slot.patientUntil - now;
                io.vertx.core.Context loop = Vertx.currentContext();
                if (waitNanos <= 0 || loop == null) {
                    slot.connection.onSuccess(c -> giveUp(slot, c));
                } else {
                    loop.owner().setTimer(Math.max(1, waitNanos / 1_000_000),
                            id -> slot.connection.onSuccess(c -> giveUp(slot, c)));
                }
            }
        }

        /** A call sent on this connection waits for its answer until {@code until} (the deadlines' clock). */
        void patientUntil(long until) {
            if (slot != null && until > slot.patientUntil) {
                slot.patientUntil = until;
            }
        }
    }

    /** Whether requests made on an event loop go over that event loop's own connection (a single Redis server). */
    boolean pinned() {
        return pin;
    }

    Sent send(Request request) {
        if (!pin || !Context.isOnEventLoopThread()) {
            return new Sent(client.send(request), null);
        }
        Slot slot = byEventLoop.get();
        if (slot == null || slot.dead || slot.connection.failed()) {
            slot = open();
            byEventLoop.set(slot);
        }
        return new Sent(slot.connection.compose(c -> c.send(request)), slot);
    }

    /**
     * Opens every event loop's connection now and sends a {@code PING} on it, so that no request pays
     * for (or times out on) a connection being set up. Nothing when connections are not pinned.
     */
    CompletableFuture<Void> openOnEveryEventLoop(Vertx vertx) {
        if (!pin || !(vertx instanceof VertxInternal internal)) {
            return CompletableFuture.completedFuture(null);
        }
        List<CompletableFuture<Void>> pings = new ArrayList<>();
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        for (EventExecutor executor : internal.getEventLoopGroup()) {
            CompletableFuture<Void> ping = new CompletableFuture<>();
            pings.add(ping);
            // a context on that very event loop (Vert.x's internal API: the public one picks loops itself)
            Context onThatLoop = internal.createEventLoopContext((EventLoop) executor, null, loader);
            onThatLoop.runOnContext(v -> send(Request.cmd(Command.PING)).answer().onComplete(r -> {
                if (r.succeeded()) {
                    ping.complete(null);
                } else {
                    ping.completeExceptionally(r.cause());
                }
            }));
        }
        return CompletableFuture.allOf(pings.toArray(CompletableFuture[]::new));
    }

    private Slot open() {
        Slot slot = new Slot(client.connect());
        slot.connection.onSuccess(c -> {
            c.exceptionHandler(e -> giveUp(slot, c));
            c.endHandler(v -> giveUp(slot, c));
        });
        return slot;
    }

    private static void giveUp(Slot slot, RedisConnection c) {
        synchronized (slot) {
            if (slot.closed) {
                return;
            }
            slot.closed = true;
        }
        slot.dead = true;
        // a pooled connection goes back to the pool on close(); close its socket first, so the pool
        // evicts it instead of handing the same dead connection to the next event loop that asks
        if (c instanceof PooledRedisConnection pooled && pooled.actual() instanceof RedisStandaloneConnection socket) {
            socket.forceClose();
        }
        c.close();
    }
}
