package example;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItems;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/**
 * The most common host: it uses Redis itself (its default client, its Redis health check on), and Slidegate decides in
 * process. Slidegate's own Redis client, which the service did not configure, must neither connect nor turn the
 * service's readiness down.
 */
@QuarkusTest
@TestProfile(HostRedisConsumerTest.HostRedisOnly.class)
class HostRedisConsumerTest {

    public static class HostRedisOnly implements QuarkusTestProfile {
        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(HostRedis.class));
        }
    }

    /** A redis-server for the service's own client only. */
    public static class HostRedis extends RedisConsumerTest.Redis {
        @Override
        public Map<String, String> start() {
            return Map.of("quarkus.redis.hosts", super.start().get("quarkus.redis.hosts"));
        }
    }

    @Test
    void theServicesReadinessIsItsRedisAndSlidegateInProcess() {
        given().get("/cache/x").then().statusCode(200).body(equalTo("cached x"));
        given().get("/q/health/ready").then().statusCode(200)
                .body("status", equalTo("UP"))
                .body("checks.name", hasItems("Slidegate store", "Redis connection health check"))
                .body("checks.find { it.name == 'Slidegate store' }.data.store", equalTo("memory"));
        given().get("/orders/export").then().statusCode(200);
    }
}
