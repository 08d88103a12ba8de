package dev.slidegate.http;

import java.util.concurrent.atomic.AtomicInteger;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotAuthorizedException;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;

import dev.slidegate.api.RateLimited;
import io.smallrye.mutiny.Uni;

/**
 * Policies that count only some outcomes ({@code count-when}, set in {@code %test} configuration): a login that counts its
 * failed attempts, and a bean method that counts the calls that failed in a given way. Each endpoint counts what it
 * answered itself, the oracle of {@code CountWhenTest}.
 */
@Path("/test/count-when")
public class CountWhenResource {

    /** The failed attempts the login answered (401), by its own count. */
    static final AtomicInteger FAILED = new AtomicInteger();

    @Inject
    Upstream upstream;

    /** 200 for the right password, 401 for a wrong one (answered, or thrown for the exception mapper to answer). */
    @GET
    @Path("login")
    @RateLimited(value = "failed-logins", limits = "3/1h", strategy = "sliding-counter", key = "header:X-User")
    public Response login(@QueryParam("password") String password, @QueryParam("throw") boolean thrown,
            @QueryParam("slow") boolean slow) throws InterruptedException {
        if (slow) {
            Thread.sleep(600); // the caller leaves before the answer
        }
        if ("right".equals(password)) {
            return Response.ok("welcome").build();
        }
        FAILED.incrementAndGet();
        if (thrown) {
            throw new NotAuthorizedException("wrong password", "Basic");
        }
        return Response.status(401).entity("wrong password").build();
    }

    /** The calls the penalty endpoint ran, by its own count. */
    static final AtomicInteger PENALTY_RAN = new AtomicInteger();

    /** 2 a second per user, and a user who goes over is blocked ({@code %test.slidegate.policies.penalty.block-for}). */
    @GET
    @Path("penalty")
    @RateLimited(value = "penalty", limits = "2/1s", strategy = "sliding-log", key = "header:X-User")
    public String penalty() {
        PENALTY_RAN.incrementAndGet();
        return "ran";
    }

    /** The calls the patient penalty endpoint ran, by its own count. */
    static final AtomicInteger PATIENT_RAN = new AtomicInteger();

    /**
     * 2 a second per user, and a user refused 3 times within 3 s is blocked
     * ({@code %test.slidegate.policies.patient-penalty.block-for} and {@code block-after}).
     */
    @GET
    @Path("patient-penalty")
    @RateLimited(value = "patient-penalty", limits = "2/1s", strategy = "sliding-log", key = "header:X-User")
    public String patientPenalty() {
        PATIENT_RAN.incrementAndGet();
        return "ran";
    }

    /** Calls the upstream, a bean whose own calls count only when they fail as {@code fail} says. */
    @GET
    @Path("upstream")
    public Uni<String> callUpstream(@QueryParam("fail") String fail) {
        return upstream.call(fail).onFailure().recoverWithItem(e -> "failed: " + e.getClass().getSimpleName());
    }

    /** A bean whose calls count when they fail with a 5xx or an {@link IllegalStateException}. */
    @ApplicationScoped
    public static class Upstream {

        /** The calls that ran, by its own count. */
        static final AtomicInteger RAN = new AtomicInteger();

        @RateLimited(value = "upstream-failures", limits = "2/1h", strategy = "sliding-counter", key = "global")
        public Uni<String> call(String fail) {
            RAN.incrementAndGet();
            return switch (fail == null ? "" : fail) {
                case "503" -> Uni.createFrom().failure(new WebApplicationException(503));
                case "404" -> Uni.createFrom().failure(new WebApplicationException(404));
                case "state" -> Uni.createFrom().failure(new IllegalStateException("broken"));
                default -> Uni.createFrom().item("ok");
            };
        }
    }
}
