package dev.slidegate.demo;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Map;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.eclipse.microprofile.openapi.annotations.headers.Header;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;

import dev.slidegate.api.RateLimited;
import dev.slidegate.http.ProblemMappers;
import dev.slidegate.http.Problems;
import dev.slidegate.http.RateLimitApi;

/**
 * Demo login, limited by two policies decided together: {@code login}, 5 failed attempts a minute per address, and
 * {@code login-user}, 10 failed attempts a quarter of an hour per user name from any address ({@link LoginUserKey}). A
 * successful login counts in neither, and an attempt refused by one is counted by neither.
 */
@Path("/api/login")
public class LoginResource {

    private final DemoConfig config;

    private final ProblemMappers problems;

    LoginResource(DemoConfig config, ProblemMappers problems) {
        this.config = config;
        this.problems = problems;
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    @RateLimited("login")
    @RateLimited("login-user")
    @APIResponse(responseCode = "200", description = "Admitted; the RateLimit fields tell the remaining quota", headers = {
            @Header(name = "RateLimit", ref = "RateLimit"), @Header(name = "RateLimit-Policy", ref = "RateLimit-Policy") })
    @APIResponse(responseCode = "429", ref = RateLimitApi.TOO_MANY_REQUESTS)
    @APIResponse(responseCode = "503", ref = RateLimitApi.UNAVAILABLE)
    public Response login(Credentials credentials) {
        if (credentials == null || blank(credentials.username()) || blank(credentials.password())) {
            return problem(400, "Bad Request", "Send a JSON body with \"username\" and \"password\".");
        }
        String expected = config.users().get(credentials.username());
        // compare in constant time; an unknown user is compared too, so timing does not tell users apart
        boolean ok = MessageDigest.isEqual(bytes(expected == null ? "\u0000" : expected), bytes(credentials.password()))
                && expected != null;
        if (!ok) {
            return problem(401, "Unauthorized", "Wrong username or password.");
        }
        return Response.ok(Map.of("user", credentials.username(), "message", "Welcome, " + credentials.username() + "."))
                .build();
    }

    private Response problem(int status, String title, String detail) {
        return problems.response(Problems.of(status, title, status == 401 ? "unauthorized" : "bad-request", detail));
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
