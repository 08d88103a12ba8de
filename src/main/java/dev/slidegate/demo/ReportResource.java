package dev.slidegate.demo;

import java.util.List;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.openapi.annotations.headers.Header;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;

import dev.slidegate.api.RateLimited;
import dev.slidegate.http.RateLimitApi;

/** Demo reports, limited per API key ({@code X-Api-Key}) by the {@code reports} policy, a fixed window. */
@Path("/api/reports")
@Produces(MediaType.APPLICATION_JSON)
public class ReportResource {

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
}
