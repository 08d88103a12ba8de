package dev.slidegate.http;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;

import jakarta.inject.Inject;

import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

import io.netty.channel.Channel;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.vertx.core.Vertx;

/**
 * The demo with the parts a service opts into left at their library defaults: nothing on the HTTP server's socket
 * ({@code slidegate.http.header-timeout=0}, which used to stop start-up, is off as unset is), the service's own
 * unreadable requests answered as Quarkus answers them, and its OpenAPI document as its annotations make it.
 */
@QuarkusTest
@TestProfile(ServiceChoicesTest.LibraryDefaults.class)
public class ServiceChoicesTest {

    public static class LibraryDefaults extends SmallLimits {
        @Override
        public java.util.Map<String, String> getConfigOverrides() {
            // (AdminRootTest shares this start: the admin where a service puts it, for the role it names; and PlanSwitchTest:
            // a PlanResolver of the service's own, reading X-Plan, and plans of reports that only its requests name, which
            // neither of the others reads: their calls of reports lack the API key, their admin calls read products)
            return plus("slidegate.http.header-timeout", "0", "slidegate.http.problem-bodies", "slidegate",
                    "slidegate.openapi.enabled", "false", "slidegate.admin.root-path", "/ops/rate-limits",
                    "slidegate.admin.role", "viewer",
                    "quarkus.arc.selected-alternatives", HeaderPlans.class.getName(),
                    "slidegate.policies.reports.plans.free.limits", "2/1h",
                    "slidegate.policies.reports.plans.pro.limits", "4/1h",
                    "slidegate.policies.reports.default-plan", "free",
                    SmallLimits.NO_OPENAPI_SCAN, "false"); // (theServicesOpenApiDocumentIsItsOwn reads it)
        }
    }

    @Inject
    Vertx vertx;

    @Test
    void noHeaderTimeoutOnTheServersSocket() throws Exception {
        given().get("/q/health/live").then().statusCode(200);
        int port = ConfigProvider.getConfig().getValue("quarkus.http.test-port", Integer.class);
        List<Channel> listening = HeaderTimeout.listening(vertx, port);
        assertEquals(1, listening.size());
        assertFalse(listening.get(0).pipeline().names().contains(HeaderTimeout.ACCEPTOR),
                listening.get(0).pipeline().names().toString());
    }

    @Test
    void theServicesUnreadableRequestsAreAnsweredAsQuarkusAnswersThem() {
        for (String body : List.of("{bad", "[1,2]")) {
            given().contentType("application/json").body(body).post("/api/login").then().statusCode(400)
                    .header("Content-Type", org.hamcrest.Matchers.anyOf(org.hamcrest.Matchers.nullValue(),
                            not(containsString("problem+json"))));
        }
        // Slidegate's own answers keep their problem bodies
        given().get("/api/reports").then().statusCode(400).contentType("application/problem+json");
    }

    @Test
    void theServicesOpenApiDocumentIsItsOwn() {
        var api = given().accept("application/json").get("/q/openapi?format=json").then().statusCode(200).extract().jsonPath();
        // what Slidegate's OpenAPI filter adds (the demo's own annotations still refer to it, and are left as they are)
        assertNull(api.get("components.responses.TooManyRequests"));
        assertNull(api.get("components.headers.RateLimit"));
    }
}
