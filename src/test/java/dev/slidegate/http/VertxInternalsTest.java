package dev.slidegate.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.netty.channel.Channel;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;

/**
 * Every internal of Vert.x and of its Redis client that Slidegate uses (docs/footprint.md lists them, with why no
 * public API does the job): this test fails on a version that changes one, before a service finds out at run time.
 */
class VertxInternalsTest {

    // the header timeout (opt-in) finds the listening socket of the service's HTTP server
    @Test
    void theHeaderTimeoutFindsTheListeningSocketOfARealServer() throws Exception {
        Vertx vertx = Vertx.vertx();
        try {
            int free;
            try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
                free = s.getLocalPort();
            }
            // on a port of its own, as a service's server listens (a server on port 0 is not shared, so not listed)
            HttpServer server = vertx.createHttpServer().requestHandler(r -> r.response().end("ok")).listen(free)
                    .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            List<Channel> listening = HeaderTimeout.listening(vertx, server.actualPort());
            assertEquals(1, listening.size(), "one listening socket for the port");
            assertTrue(listening.get(0).isActive());
            assertEquals(server.actualPort(), ((java.net.InetSocketAddress) listening.get(0).localAddress()).getPort());
            assertEquals(List.of(), HeaderTimeout.listening(vertx, server.actualPort() == 1 ? 2 : 1),
                    "no server on another port");
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void theInternalsOfTheHeaderTimeoutAreThere() throws Exception {
        method("io.vertx.core.impl.VertxInternal", "sharedHttpServers");
        method("io.vertx.core.http.impl.HttpServerImpl", "actualPort");
        method("io.vertx.core.net.impl.ConnectionBase", "channel");
        assertEquals("io.vertx.core.Future", Class.forName("io.vertx.core.net.impl.TCPServerBase")
                .getDeclaredField("bindFuture").getType().getName());
    }

    // each event loop's own Redis connection (EventLoopConnections), and Redis errors told apart from others (RedisStore)
    @Test
    void theInternalsOfTheRedisConnectionsAreThere() throws Exception {
        method("io.vertx.core.impl.VertxInternal", "getEventLoopGroup");
        method("io.vertx.core.impl.VertxInternal", "createEventLoopContext", io.netty.channel.EventLoop.class,
                Class.forName("io.vertx.core.impl.WorkerPool"), ClassLoader.class);
        method("io.vertx.redis.client.impl.PooledRedisConnection", "actual");
        method("io.vertx.redis.client.impl.RedisStandaloneConnection", "forceClose");
        Method create = method("io.vertx.redis.client.impl.types.ErrorType", "create", String.class);
        assertTrue(Modifier.isStatic(create.getModifiers()));
        Object error = create.invoke(null, "ERR wrong");
        assertTrue(error instanceof Throwable, "a Redis error is a Throwable the store can fail a future with");
    }

    private static Method method(String type, String name, Class<?>... parameters) throws Exception {
        Method m = Class.forName(type).getMethod(name, parameters);
        assertTrue(Modifier.isPublic(m.getModifiers()), type + "." + name + " is public");
        return m;
    }
}
