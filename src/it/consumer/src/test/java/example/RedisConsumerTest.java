package example;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import redis.embedded.RedisServer;

/**
 * The same service on the Redis store, through a Redis client of Slidegate's own (quarkus.redis.slidegate.hosts), beside
 * the service's own use of its default client, whose pool and health check stay the service's.
 */
@QuarkusTest
@TestProfile(RedisConsumerTest.OnRedis.class)
class RedisConsumerTest {

    /** A redis-server on a free port (the binary the embedded-redis artifact ships for this machine). */
    public static class Redis implements QuarkusTestResourceLifecycleManager {
        private RedisServer server;

        @Override
        public Map<String, String> start() {
            try (ServerSocket s = new ServerSocket(0)) {
                int port = s.getLocalPort();
                s.close();
                server = new RedisServer(port);
                server.start();
                // the service's own client, and Slidegate's (its own named client, here on the same server)
                return Map.of("quarkus.redis.hosts", "redis://127.0.0.1:" + port, "quarkus.redis.slidegate.hosts",
                        "redis://127.0.0.1:" + port + "/1", "slidegate.store", "redis");
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void stop() {
            try {
                if (server != null) {
                    server.stop();
                }
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    public static class OnRedis implements QuarkusTestProfile {
        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(Redis.class));
        }

        /** The admin is built in only when it is asked for while the service is built: a profile's setting is. */
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("slidegate.admin.enabled", "true");
        }
    }

    @jakarta.inject.Inject
    io.quarkus.redis.datasource.RedisDataSource hostRedis;

    @jakarta.inject.Inject
    io.vertx.mutiny.core.Vertx vertx;

    @Test
    void theServicesOwnRedisClientAndHealthCheckAreItsOwn() {
        given().get("/cache/k").then().statusCode(200).body(equalTo("cached k"));
        // the Redis client's own health check, which the service left on, runs beside Slidegate's
        given().get("/q/health/ready").then().statusCode(200)
                .body("checks.name", org.hamcrest.Matchers.hasItems("Slidegate store", "Redis connection health check"));
    }

    @Test
    void theAdminIsUnderItsOwnRootAndGuarded() {
        // on, but this service has no security extension: nobody holds the role, so nobody gets in
        given().get("/q/slidegate").then().statusCode(401);
        given().get("/q/slidegate/policies/orders/keys").then().statusCode(401);
        given().get("/admin").then().statusCode(200).body(equalTo("the service's own admin"));
    }

    @Test
    void limitsAreKeptInRedis() {
        given().get("/q/health/ready").then().statusCode(200)
                .body("checks.find { it.name == 'Slidegate store' }.data.store", equalTo("redis"))
                .body("checks.find { it.name == 'Slidegate store' }.data.redis", equalTo("up"));
        given().get("/orders/export").then().statusCode(200);
        given().get("/orders/export").then().statusCode(200);
        given().get("/orders/export").then().statusCode(429).body("policy", equalTo("orders"));
        // the windows are in Redis itself (a degraded store deciding in process would answer the same 2 + 429), in
        // Slidegate's client's database (1), never in the service's own (0)
        String hosts = org.eclipse.microprofile.config.ConfigProvider.getConfig().getValue("quarkus.redis.slidegate.hosts",
                String.class);
        io.vertx.mutiny.redis.client.Redis own = io.vertx.mutiny.redis.client.Redis.createClient(vertx, hosts);
        try {
            io.vertx.mutiny.redis.client.Response keys = own
                    .send(io.vertx.mutiny.redis.client.Request.cmd(io.vertx.mutiny.redis.client.Command.KEYS).arg("*orders*"))
                    .await().atMost(java.time.Duration.ofSeconds(5));
            org.junit.jupiter.api.Assertions.assertTrue(keys.size() > 0, "the orders window is kept in Redis: " + keys);
        } finally {
            own.close();
        }
        org.junit.jupiter.api.Assertions.assertEquals(java.util.List.of(), hostRedis.key().keys("*slidegate*"));
    }

    @jakarta.inject.Inject
    dev.slidegate.testkit.SlidegateTestKit slidegate;

    // the README's user-within-a-tenant recipe with the windows in Redis: both policies decided by one script
    @Test
    void recipeAUserWithinATenantOnRedis() {
        slidegate.reset();
        ConsumerTest.teamReportsOfATenant();
    }

    // the test kit empties windows kept in Redis too: a test starts afresh without waiting out a window
    @Test
    void theTestKitEmptiesTheWindowsInRedis() {
        slidegate.reset();
        for (int i = 0; i < 3; i++) {
            given().get("/orders").then().statusCode(200);
        }
        given().get("/orders").then().statusCode(429);
        slidegate.reset();
        given().get("/orders").then().statusCode(200).header("RateLimit", "\"OrderResource.list-1m\";r=2;t=60");
    }

    // and moves them as the clock moves: a minute ahead refills the window kept in Redis, no sleeping
    @Test
    void theTestKitMovesTheWindowsInRedisWithItsClock() {
        slidegate.reset();
        for (int i = 0; i < 3; i++) {
            given().get("/orders").then().statusCode(200);
        }
        given().get("/orders").then().statusCode(429);
        slidegate.advance(java.time.Duration.ofSeconds(61));
        given().get("/orders").then().statusCode(200);
    }
}
