package dev.slidegate.redis;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisConnection;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;

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
            if (slot != null) {
                slot.connection.onSuccess(c -> giveUp(slot, c));
                slot.dead = true;
            }
        }
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
    java.util.concurrent.CompletableFuture<Void> openOnEveryEventLoop(io.vertx.core.Vertx vertx) {
        if (!pin || !(vertx instanceof io.vertx.core.impl.VertxInternal internal)) {
            return java.util.concurrent.CompletableFuture.completedFuture(null);
        }
        java.util.List<java.util.concurrent.CompletableFuture<Void>> pings = new java.util.ArrayList<>();
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        for (io.netty.util.concurrent.EventExecutor executor : internal.getEventLoopGroup()) {
            java.util.concurrent.CompletableFuture<Void> ping = new java.util.concurrent.CompletableFuture<>();
            pings.add(ping);
            internal.createEventLoopContext((io.netty.channel.EventLoop) executor, null, loader).runOnContext(v -> send(Request.cmd(
                    io.vertx.redis.client.Command.PING)).answer().onComplete(r -> {
                        if (r.succeeded()) {
                            ping.complete(null);
                        } else {
                            ping.completeExceptionally(r.cause());
                        }
                    }));
        }
        return java.util.concurrent.CompletableFuture.allOf(pings.toArray(java.util.concurrent.CompletableFuture[]::new));
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
        if (c instanceof io.vertx.redis.client.impl.PooledRedisConnection pooled
                && pooled.actual() instanceof io.vertx.redis.client.impl.RedisStandaloneConnection socket) {
            socket.forceClose();
        }
        c.close();
    }
}
