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

/** The same service on the Redis store: one property, and the limits are kept in Redis. */
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
                return Map.of("quarkus.redis.hosts", "redis://127.0.0.1:" + port, "slidegate.store", "redis");
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
    }

    @Test
    void limitsAreKeptInRedis() {
        given().get("/q/health/ready").then().statusCode(200).body("checks.find { it.name == 'Slidegate store' }.data.store",
                equalTo("redis"));
        given().get("/orders/export").then().statusCode(200);
        given().get("/orders/export").then().statusCode(200);
        given().get("/orders/export").then().statusCode(429).body("policy", equalTo("orders"));
    }
}
