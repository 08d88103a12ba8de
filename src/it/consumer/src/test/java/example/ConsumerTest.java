package example;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.config.spi.ConfigSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.slidegate.testkit.SlidegateTestKit;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;

/**
 * The service limits with Slidegate as its only addition, nothing of Slidegate's demo reaches it, and nothing of the
 * service's own (its /admin, its errors, its settings, its log filter) is changed by Slidegate being on its class path.
 */
@io.quarkus.test.common.QuarkusTestResource(StandInOpenAi.class)
@QuarkusTest
class ConsumerTest {

    /** Slidegate's test kit: each test starts with empty windows, and moves Slidegate's clock instead of sleeping. */
    @Inject
    SlidegateTestKit slidegate;

    @BeforeEach
    void emptyWindows() {
        slidegate.reset();
    }

    @Test
    void theTestKitMovesSlidegatesClockInsteadOfSleeping() {
        for (int i = 0; i < 3; i++) {
            given().get("/orders").then().statusCode(200);
        }
        given().get("/orders").then().statusCode(429).header("Retry-After", "60");
        slidegate.advance(Duration.ofSeconds(59));
        given().get("/orders").then().statusCode(429).header("Retry-After", "1");
        slidegate.advance(Duration.ofMillis(1001)); // (a permit counts through the end of its window)
        given().get("/orders").then().statusCode(200).header("RateLimit", "\"OrderResource.list-1m\";r=2;t=60");
        assertThrows(IllegalArgumentException.class, () -> slidegate.advance(Duration.ofSeconds(-1)));
    }

    @Test
    void inlineLimitsAnswer200Then429WithTheRateLimitFields() {
        for (int remaining = 2; remaining >= 0; remaining--) {
            given().get("/orders").then().statusCode(200).body(equalTo("orders"))
                    .header("RateLimit-Policy", "\"OrderResource.list-1m\";q=3;w=60")
                    .header("RateLimit", "\"OrderResource.list-1m\";r=" + remaining + ";t=60");
        }
        given().get("/orders").then().statusCode(429).header("Content-Type", "application/problem+json;charset=UTF-8")
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
        // the admin is off unless the service turns it on: no route at its root, and no demo user exists
        given().auth().preemptive().basic("admin", "slidegate-demo").get("/q/slidegate").then().statusCode(404);
    }

    @Test
    void theServicesOwnAdminIsItsOwn() {
        given().get("/admin").then().statusCode(200).body(equalTo("the service's own admin"));
        given().get("/admin/users").then().statusCode(200).body(equalTo("the service's own users"));
        given().urlEncodingEnabled(false).get("/admin%2Fusers").then().statusCode(not(equalTo(200)));
    }

    @Test
    void theServicesOwnErrorsAreAnsweredAsItsFrameworkAnswersThem() {
        // a body-less 400 stays body-less: no problem body of Slidegate's
        given().get("/host/bad").then().statusCode(400).body(equalTo(""))
                .header("Content-Type", org.hamcrest.Matchers.anyOf(org.hamcrest.Matchers.nullValue(),
                        not(containsString("problem+json"))));
        // a JSON body it cannot read: Quarkus' own answer, not Slidegate's
        for (String body : List.of("{\"name\": \"a\", \"quantity\": ", "{\"name\": \"a\", \"quantity\": [1]}")) {
            given().contentType("application/json").body(body).post("/host/items").then().statusCode(400)
                    .header("Content-Type", org.hamcrest.Matchers.anyOf(org.hamcrest.Matchers.nullValue(),
                            not(containsString("problem+json"))));
        }
        given().contentType("application/json").body("{\"name\": \"a\", \"quantity\": 1}").post("/host/items").then()
                .statusCode(200).body(equalTo("a"));
    }

    @Test
    void slidegateSetsNoneOfTheServicesSettings() {
        List<String> set = new ArrayList<>();
        for (ConfigSource source : ConfigProvider.getConfig().getConfigSources()) {
            String name = source.getName() == null ? "" : source.getName();
            if (name.contains("slidegate") && name.contains("microprofile-config.properties")) {
                source.getPropertyNames().stream().filter(p -> p.startsWith("quarkus.")).forEach(p -> set.add(name + ": " + p));
            }
        }
        assertEquals(List.of(), set, "quarkus.* settings shipped by Slidegate");
        assertTrue(sourceNames().stream().anyMatch(n -> n.contains("slidegate") && n.contains("microprofile-config.properties")),
                "Slidegate's own defaults file is read (so the check above looked at it): " + sourceNames());
        // the service's own values are the ones in force
        assertEquals("host-filter", ConfigProvider.getConfig().getValue("quarkus.log.console.filter", String.class));
        assertEquals(7, ConfigProvider.getConfig().getValue("quarkus.redis.max-pool-size", Integer.class));
        assertTrue(ConfigProvider.getConfig().getOptionalValue("quarkus.redis.devservices.enabled", Boolean.class)
                .orElse(true), "Redis Dev Services are the service's to switch off");
    }

    private static List<String> sourceNames() {
        List<String> names = new ArrayList<>();
        ConfigProvider.getConfig().getConfigSources().forEach(s -> names.add(String.valueOf(s.getName())));
        return names;
    }

    @Test
    void theServicesOwnLogFilterStaysInForceAndSeesItsLinesAsWritten() {
        String line = "connecting to redis://:host-secret@cache.internal:6379 " + System.nanoTime();
        given().queryParam("text", line).get("/host/log").then().statusCode(200);
        // the service did not ask Slidegate to redact its lines (slidegate.log.redact=all): they reach its filter as written
        assertTrue(HostLogFilter.SEEN.contains(line), HostLogFilter.SEEN.toString());
    }

    @Test
    void metricsAreTheServicesChoice() {
        // Slidegate brings the Micrometer API, not the Quarkus extension: a service that added no registry
        // has no Micrometer to start, and the decisions of the other tests were made without a MeterRegistry
        assertThrows(ClassNotFoundException.class, () -> Class.forName("io.quarkus.micrometer.runtime.MicrometerRecorder"));
        given().get("/q/metrics").then().statusCode(404);
    }

    // the README's recipes, as printed there (example.ReadmeRecipes and this service's application.properties)

    @Test
    void recipePerClientBehindAProxy() {
        given().queryParam("q", "x").get("/recipes/search").then().statusCode(200)
                .header("RateLimit-Policy", "\"search-1m\";q=100;w=60").header("RateLimit", "\"search-1m\";r=99;t=60");
        // this caller (127.0.0.1) is no trusted proxy: what it forwards is not believed, it stays one caller
        given().header("X-Forwarded-For", "203.0.113.9").queryParam("q", "x").get("/recipes/search").then().statusCode(200)
                .header("RateLimit", "\"search-1m\";r=98;t=60");
    }

    @Test
    void recipePerApiKey() {
        given().get("/recipes/reports").then().statusCode(400).contentType("application/problem+json");
        given().header("X-Api-Key", "k1").get("/recipes/reports").then().statusCode(200)
                .header("RateLimit", "\"reports-1h\";r=999;t=3600");
        given().header("X-Api-Key", "k2").get("/recipes/reports").then().statusCode(200)
                .header("RateLimit", "\"reports-1h\";r=999;t=3600");
        given().header("X-Api-Key", "k1").get("/recipes/reports").then().statusCode(200)
                .header("RateLimit", "\"reports-1h\";r=998;t=3600");
    }

    @Test
    void recipeAUserWithinATenant() {
        teamReportsOfATenant();
    }

    /**
     * The README's user-within-a-tenant recipe: a user's 11th call is refused by its own limit and charged to neither,
     * so the tenant's next call finds 14 of 25 left; then the tenant's limit refuses a user who still has room.
     */
    static void teamReportsOfATenant() {
        for (int i = 0; i < 10; i++) {
            given().header("X-User", "ann").header("X-Tenant", "acme").get("/recipes/team-report").then().statusCode(200);
        }
        given().header("X-User", "ann").header("X-Tenant", "acme").get("/recipes/team-report").then().statusCode(429)
                .body("policy", equalTo("per-user"));
        given().header("X-User", "ben").header("X-Tenant", "acme").get("/recipes/team-report").then().statusCode(200)
                .header("RateLimit", "\"per-tenant-1m\";r=14;t=60, \"per-user-1m\";r=9;t=60");
        for (int i = 0; i < 9; i++) {
            given().header("X-User", "ben").header("X-Tenant", "acme").get("/recipes/team-report").then().statusCode(200);
        }
        for (int i = 0; i < 5; i++) {
            given().header("X-User", "cyd").header("X-Tenant", "acme").get("/recipes/team-report").then().statusCode(200);
        }
        given().header("X-User", "cyd").header("X-Tenant", "acme").get("/recipes/team-report").then().statusCode(429)
                .body("policy", equalTo("per-tenant"));
        // the tenant's refusal charged cyd nothing: another tenant's call of cyd finds 5 of 10 left
        given().header("X-User", "cyd").header("X-Tenant", "other").get("/recipes/team-report").then().statusCode(200)
                .header("RateLimit", "\"per-tenant-1m\";r=24;t=60, \"per-user-1m\";r=4;t=60");
    }

    @Test
    void recipeLoginAttempts() {
        String guess = "{\"username\":\"bob\",\"password\":\"guess\"}";
        String right = "{\"username\":\"bob\",\"password\":\"right\"}";
        for (int i = 0; i < 2; i++) {
            given().contentType("application/json").body(guess).post("/recipes/login").then().statusCode(401);
        }
        for (int i = 0; i < 8; i++) { // successful logins cost the failures' budget nothing
            given().contentType("application/json").body(right).post("/recipes/login").then().statusCode(200);
        }
        for (int i = 0; i < 3; i++) {
            given().contentType("application/json").body(guess).post("/recipes/login").then().statusCode(401);
        }
        for (int i = 0; i < 2; i++) { // refused, not blocked: room again within the minute
            given().contentType("application/json").body(right).post("/recipes/login").then().statusCode(429)
                    .body("policy", equalTo("login")).header("Retry-After", org.hamcrest.Matchers.not("900"));
        }
        given().contentType("application/json").body(right).post("/recipes/login").then().statusCode(429)
                .body("policy", equalTo("login")).header("Retry-After", "900"); // the third refusal: blocked for 15 minutes
    }

    @Test
    void recipeChatTokensFromTheAnswer() {
        String request = "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":100}";
        long estimate = (request.length() + 3) / 4 + 100;
        given().header("X-Api-Key", "chat-tenant").contentType("application/json").body(request).post("/recipes/chat").then()
                .statusCode(200).header("RateLimit", containsString("\"chat-tokens-month\";r=" + (1000000 - estimate) + ";"));
        // the first call was settled at the 42 tokens its answer reported: the second is admitted against its estimate
        given().header("X-Api-Key", "chat-tenant").contentType("application/json").body(request).post("/recipes/chat").then()
                .statusCode(200).header("RateLimit", containsString("\"chat-tokens-month\";r=" + (1000000 - 42 - estimate) + ";"));
    }

    // issue 60: a service built on quarkus-langchain4j, limited without code of its own: the framework's REST client
    // is read for the request whose policy reads answers
    @Test
    void anAiServiceOfQuarkusLangchain4jIsChargedWhatTheProviderReported() {
        given().header("X-Api-Key", "assistant").queryParam("q", "hi").get("/assistant").then().statusCode(200)
                .body(equalTo("Hello")).header("RateLimit", containsString("\"assistant-tokens-1m\";r=500;"));
        // the first call was settled at the 18 tokens the provider's answer reported
        given().header("X-Api-Key", "assistant").queryParam("q", "hi").get("/assistant").then().statusCode(200)
                .header("RateLimit", containsString("\"assistant-tokens-1m\";r=482;"));
    }

    // the same service streamed: the framework reads the provider's events as its own types with its own client, and the
    // request is settled at the 18 tokens the last chunk reported
    @Test
    void aStreamingAiServiceOfQuarkusLangchain4jIsChargedWhatTheProviderReported() {
        String events = given().header("X-Api-Key", "assistant-streaming").queryParam("q", "hi").get("/assistant/stream")
                .then().statusCode(200).extract().asString();
        assertEquals("Hello", events.lines().filter(l -> l.startsWith("data:")).map(l -> l.substring(5))
                .collect(java.util.stream.Collectors.joining()));
        // admitted against 500 tokens, settled at the 18 the provider's last chunk reported
        given().header("X-Api-Key", "assistant-streaming").queryParam("q", "hi").get("/assistant/stream").then()
                .statusCode(200).header("RateLimit", containsString("\"assistant-tokens-1m\";r=482;"));
    }

    @Test
    void recipeLlmTokensPerMonth() {
        given().header("X-Api-Key", "tenant").queryParam("prompt", "hi").queryParam("max-tokens", 500)
                .get("/recipes/complete").then().statusCode(200).body("tokens", equalTo(7))
                .header("RateLimit-Policy", containsString("\"llm-tokens-month\";q=1000000;qu=\"slidegate-tokens\""))
                .header("RateLimit", containsString("\"llm-tokens-1m\";r=19500;"));
        // the first call was settled at the 7 tokens it used: the second is admitted against 500 more
        given().header("X-Api-Key", "tenant").queryParam("prompt", "hi").queryParam("max-tokens", 500)
                .get("/recipes/complete").then().statusCode(200)
                .header("RateLimit", containsString("\"llm-tokens-1m\";r=19493;"));
    }
}
