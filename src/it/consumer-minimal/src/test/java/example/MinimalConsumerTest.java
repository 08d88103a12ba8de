package example;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;

/** Slidegate alone, without the Redis client or a health endpoint: the service builds, starts and limits in process. */
@QuarkusTest
class MinimalConsumerTest {

    @Test
    void limitsInProcess() {
        given().get("/notes").then().statusCode(200).body(equalTo("notes")).header("RateLimit", "\"NoteResource.list-1m\";r=1;t=60");
        given().get("/notes").then().statusCode(200);
        given().get("/notes").then().statusCode(429).contentType("application/problem+json");
    }

    @Test
    void noOptionalPartIsThere() {
        assertThrows(ClassNotFoundException.class, () -> Class.forName("io.quarkus.redis.client.RedisClientName"));
        assertThrows(ClassNotFoundException.class, () -> Class.forName("org.eclipse.microprofile.health.HealthCheck"));
        given().get("/q/health/ready").then().statusCode(404);
        given().get("/q/slidegate").then().statusCode(404);
    }
}
