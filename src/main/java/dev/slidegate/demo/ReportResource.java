package dev.slidegate.demo;

import dev.slidegate.interceptor.RateLimited;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.List;

/** Demo reports, limited per API key ({@code X-Api-Key}) by the {@code reports} policy, a fixed window. */
@Path("/api/reports")
@Produces(MediaType.APPLICATION_JSON)
public class ReportResource {

    private static final List<Report> REPORTS = List.of(
            new Report("sales-2026-10", "Sales", "2026-10"),
            new Report("traffic-2026-10", "Traffic", "2026-10"));

    @GET
    @RateLimited("reports")
    public List<Report> list() {
        return REPORTS;
    }
}
