package dev.slidegate.demo;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.eclipse.microprofile.openapi.annotations.headers.Header;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;

import dev.slidegate.api.RateLimitExceededException;
import dev.slidegate.api.RateLimited;
import dev.slidegate.api.RateLimiter;
import dev.slidegate.http.ProblemMappers;
import dev.slidegate.http.Problems;
import dev.slidegate.http.RateLimitApi;

/**
 * Demo reports, limited per API key ({@code X-Api-Key}) by the {@code reports} policy, a fixed window; exports,
 * whose cost depends on the request, limited with the programmatic {@link RateLimiter}; and archives, long-running,
 * limited by how many run at once.
 */
@Path("/api/reports")
@Produces(MediaType.APPLICATION_JSON)
public class ReportResource {

    /** Rows an export may have, and how many rows one permit of the {@code exports} policy pays for. */
    static final int MAX_ROWS = 100_000;
    static final int ROWS_PER_PERMIT = 1_000;
    private static final java.util.regex.Pattern ROWS = java.util.regex.Pattern.compile("[0-9]{1,6}");
    private static final java.util.regex.Pattern SECONDS = java.util.regex.Pattern.compile("[0-9]{1,2}(\\.[0-9]{1,3})?");

    private final RateLimiter limiter;

    private final ProblemMappers problems;

    ReportResource(RateLimiter limiter, ProblemMappers problems) {
        this.limiter = limiter;
        this.problems = problems;
    }

    private static final List<Report> REPORTS = List.of(
            new Report("sales-2026-10", "Sales", "2026-10"),
            new Report("traffic-2026-10", "Traffic", "2026-10"));

    @GET
    @RateLimited("reports")
    @APIResponse(responseCode = "200", description = "Admitted; the RateLimit fields tell the remaining quota", headers = {
            @Header(name = "RateLimit", ref = "RateLimit"), @Header(name = "RateLimit-Policy", ref = "RateLimit-Policy") })
    @APIResponse(responseCode = "429", ref = RateLimitApi.TOO_MANY_REQUESTS)
    @APIResponse(responseCode = "503", ref = RateLimitApi.UNAVAILABLE)
    public List<Report> list() {
        return REPORTS;
    }

    /**
     * An export of {@code rows} rows, charged one permit of the {@code exports} policy per thousand rows
     * (rounded up) to the caller's API key: a cost an annotation cannot know, so the programmatic
     * {@link RateLimiter} decides.
     */
    @GET
    @Path("export")
    @APIResponse(responseCode = "200", description = "The export was admitted")
    @APIResponse(responseCode = "400", description = "No X-Api-Key, or rows outside 1 to 100 000")
    @APIResponse(responseCode = "429", ref = RateLimitApi.TOO_MANY_REQUESTS)
    @APIResponse(responseCode = "503", ref = RateLimitApi.UNAVAILABLE)
    public CompletionStage<Response> export(@HeaderParam("X-Api-Key") String apiKey, @QueryParam("rows") String rowsParam) {
        if (apiKey == null || apiKey.isBlank()) {
            return CompletableFuture.completedFuture(problem("Send your API key in the X-Api-Key header."));
        }
        int rows = rowsParam != null && ROWS.matcher(rowsParam).matches() ? Integer.parseInt(rowsParam) : -1;
        if (rows < 1 || rows > MAX_ROWS) {
            return CompletableFuture.completedFuture(problem("Ask for 1 to " + MAX_ROWS + " rows: ?rows=N."));
        }
        int permits = (rows + ROWS_PER_PERMIT - 1) / ROWS_PER_PERMIT;
        return limiter.acquire("exports", apiKey, permits).thenApply(decision -> {
            if (!decision.allowed()) {
                throw new RateLimitExceededException(decision, permits);
            }
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("rows", rows);
            body.put("permits", permits);
            return Response.ok(body).build();
        });
    }

    /**
     * A long-running archive of the reports ({@code seconds}, 0.1 to 30, is how long it takes; 3 by default), limited by
     * the {@code archives} policy to 2 running at once per API key, on every instance together. The answer says when it
     * started and ended, on this machine's clock.
     */
    @GET
    @Path("archive")
    @RateLimited("archives")
    @APIResponse(responseCode = "200", description = "The archive, once built")
    @APIResponse(responseCode = "400", description = "No X-Api-Key, or seconds outside 0.1 to 30")
    @APIResponse(responseCode = "429", ref = RateLimitApi.TOO_MANY_REQUESTS)
    @APIResponse(responseCode = "503", ref = RateLimitApi.UNAVAILABLE)
    public io.smallrye.mutiny.Uni<Response> archive(@QueryParam("seconds") String secondsParam) {
        long millis = secondsParam == null ? 3_000
                : SECONDS.matcher(secondsParam).matches() ? Math.round(Double.parseDouble(secondsParam) * 1000) : -1;
        if (millis < 100 || millis > 30_000) {
            return io.smallrye.mutiny.Uni.createFrom()
                    .item(problem("Ask for an archive taking 0.1 to 30 seconds: ?seconds=N."));
        }
        java.time.Instant started = java.time.Instant.now();
        return io.smallrye.mutiny.Uni.createFrom().voidItem().onItem().delayIt().by(java.time.Duration.ofMillis(millis))
                .map(v -> {
                    Map<String, Object> body = new LinkedHashMap<>();
                    body.put("reports", REPORTS.size());
                    body.put("seconds", millis / 1000.0);
                    body.put("startedAt", started.toString());
                    body.put("endedAt", java.time.Instant.now().toString());
                    return Response.ok(body).build();
                });
    }

    private Response problem(String detail) {
        return problems.response(Problems.of(400, "Bad Request", "bad-request", detail));
    }
}
