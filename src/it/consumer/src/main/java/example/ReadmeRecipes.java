package example;

import java.util.List;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Response;

import dev.slidegate.api.RateLimitCost;
import dev.slidegate.api.RateLimited;
import dev.slidegate.api.ReportsUsage;
import io.smallrye.mutiny.Uni;

/**
 * The README's recipes, their annotations and signatures as printed there (the README's {@code ...} bodies filled in);
 * {@code ReadmeRecipesTest} in Slidegate's own suite checks that every line the README prints is here or in this
 * service's application.properties, and {@code ConsumerTest} runs them.
 */
@Path("/recipes")
public class ReadmeRecipes {

    public record Hit(String text) {
    }

    public record Report(String title) {
    }

    public record Credentials(String username, String password) {
    }

    @GET
    @Path("search")
    @RateLimited(value = "search", limits = "100/1m")
    public List<Hit> search(@QueryParam("q") String q) { return List.of(new Hit(q)); }

    @GET
    @Path("reports")
    @RateLimited(value = "reports", key = "header:X-Api-Key", limits = "1000/1h")
    public Report report() { return new Report("monthly"); }

    @GET
    @Path("team-report")
    @RateLimited(value = "per-user", key = "header:X-User", limits = "10/1m")
    @RateLimited(value = "per-tenant", key = "header:X-Tenant", limits = "25/1m")
    public Report teamReport() { return new Report("team"); }

    @POST
    @Path("/login")
    @RateLimited(value = "login", limits = "5/1m", strategy = "sliding-counter")
    public Response login(Credentials credentials) { return Response.status("right".equals(credentials.password()) ? 200 : 401).build(); }

    @GET
    @Path("complete")
    @RateLimited("llm-tokens")
    public Uni<Completion> complete(@QueryParam("prompt") String prompt,
            @RateLimitCost @QueryParam("max-tokens") int maxTokens) { return Uni.createFrom().item(new Completion("hello", 7)); }

    @POST
    @Path("chat")
    @RateLimited("chat-tokens")
    public Uni<String> chat(String request) { return Uni.createFrom().item("{\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":30,\"total_tokens\":42}}"); }

    public record Completion(String text, int tokens) implements ReportsUsage {
        @Override public long used() { return tokens; }     // what the call is charged in the end
    }
}
