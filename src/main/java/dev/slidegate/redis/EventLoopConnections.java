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

    Future<Response> send(Request request) {
        if (!pin || !Context.isOnEventLoopThread()) {
            return client.send(request);
        }
        Slot slot = byEventLoop.get();
        if (slot == null || slot.dead || slot.connection.failed()) {
            slot = open();
            byEventLoop.set(slot);
        }
        return slot.connection.compose(c -> c.send(request));
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
        if (!slot.dead) {
            slot.dead = true;
            c.close();
        }
    }
}
