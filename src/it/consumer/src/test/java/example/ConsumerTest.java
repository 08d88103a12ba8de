package example;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;

/** The service limits with Slidegate as its only addition, and nothing of Slidegate's demo reaches it. */
@QuarkusTest
class ConsumerTest {

    @Test
    void inlineLimitsAnswer200Then429WithTheRateLimitFields() {
        for (int remaining = 2; remaining >= 0; remaining--) {
            given().get("/orders").then().statusCode(200).body(equalTo("orders"))
                    .header("RateLimit-Policy", "\"OrderResource.list-1m\";q=3;w=60")
                    .header("RateLimit", "\"OrderResource.list-1m\";r=" + remaining + ";t=60");
        }
        given().get("/orders").then().statusCode(429).contentType("application/problem+json")
                .header("Retry-After", org.hamcrest.Matchers.matchesPattern("\\d+")).body("policy", equalTo("OrderResource.list"));
    }

    @Test
    void aPolicyFromTheServicesOwnConfigurationApplies() {
        given().get("/orders/export").then().statusCode(200).header("RateLimit-Policy", containsString("\"orders-1m\";q=2"));
        given().get("/orders/export").then().statusCode(200);
        given().get("/orders/export").then().statusCode(429).body("policy", equalTo("orders"));
    }

    @Test
    void theProgrammaticLimiterDecidesForCodeThatIsNotAnnotated() {
        given().get("/orders/by/acme").then().statusCode(200);
        given().get("/orders/by/acme").then().statusCode(200);
        given().get("/orders/by/acme").then().statusCode(429).header("Retry-After", org.hamcrest.Matchers.matchesPattern("\\d+"));
        given().get("/orders/by/globex").then().statusCode(200);
    }

    @Test
    void nothingOfTheDemoReachesTheService() {
        given().get("/api/products").then().statusCode(404);
        given().post("/api/login").then().statusCode(404);
        // the admin API is off unless the service turns it on, and no demo user exists
        given().auth().preemptive().basic("admin", "slidegate-demo").get("/admin").then().statusCode(404);
    }

    @Test
    void metricsAreTheServicesChoice() {
        // Slidegate brings the Micrometer API, not the Quarkus extension: a service that added no registry
        // has no Micrometer to start, and the decisions of the other tests were made without a MeterRegistry
        assertThrows(ClassNotFoundException.class, () -> Class.forName("io.quarkus.micrometer.runtime.MicrometerRecorder"));
        given().get("/q/metrics").then().statusCode(404);
    }
}
