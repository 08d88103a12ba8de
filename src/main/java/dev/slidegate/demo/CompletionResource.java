package dev.slidegate.demo;

import java.time.Duration;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;

import dev.slidegate.api.RateLimited;
import dev.slidegate.api.ReportsUsage;
import dev.slidegate.api.Usage;
import dev.slidegate.http.ProblemMappers;
import dev.slidegate.http.Problems;
import dev.slidegate.http.RateLimitApi;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;

/**
 * An LLM endpoint as a service would write it: it streams a completion and reports the tokens it streamed, so the
 * {@code completion-tokens} policy (a per-minute burst and a monthly budget per API key, counted in tokens) charges what the
 * answer used, not the estimate the call was admitted against.
 */
@Path("/api/completions")
public class CompletionResource {

    private static final java.util.regex.Pattern TOKENS = java.util.regex.Pattern.compile("[0-9]{1,4}");
    /** The most tokens an answer has when the caller names no {@code max-tokens}. */
    static final int DEFAULT_MAX_TOKENS = 200;

    /** The {@code max-tokens} a request asks for: {@link #DEFAULT_MAX_TOKENS} without one, -1 for one that is no number. */
    static int maxTokens(String text) {
        return text == null ? DEFAULT_MAX_TOKENS : TOKENS.matcher(text).matches() ? Integer.parseInt(text) : -1;
    }

    private final FakeModel model;
    private final Usage usage;
    private final ProblemMappers problems;

    CompletionResource(FakeModel model, Usage usage, ProblemMappers problems) {
        this.model = model;
        this.usage = usage;
        this.problems = problems;
    }

    /**
     * A completion of {@code prompt}, at most {@code max-tokens} tokens (1 to 4 000; 200 by default), streamed a token a
     * line; {@code delay-ms} (0 to 100, default 2) between tokens, as a model takes its time.
     */
    @GET
    @RateLimited("completion-tokens")
    @Produces(MediaType.TEXT_PLAIN)
    @APIResponse(responseCode = "200", description = "The completion, a token a line")
    @APIResponse(responseCode = "400", description = "No X-Api-Key, no prompt, or max-tokens outside 1 to 4000")
    @APIResponse(responseCode = "429", ref = RateLimitApi.TOO_MANY_REQUESTS)
    public Multi<String> complete(@QueryParam("prompt") String prompt, @QueryParam("max-tokens") String maxTokens,
            @QueryParam("delay-ms") String delayMs) {
        int max = maxTokens(maxTokens);
        int delay = delayMs == null ? 2 : TOKENS.matcher(delayMs).matches() ? Integer.parseInt(delayMs) : -1;
        if (prompt == null || prompt.isBlank() || max < 1 || max > 4000 || delay < 0 || delay > 100) {
            usage.report(0); // a request the model never saw used nothing: its estimate comes back
            return Multi.createFrom().failure(new jakarta.ws.rs.WebApplicationException(problems.response(Problems.of(400,
                    "Bad Request", "bad-request",
                    "Ask for a completion with ?prompt=..., optionally max-tokens=1..4000 and delay-ms=0..100."))));
        }
        return model.complete(prompt, max, Duration.ofMillis(delay)).map(token -> {
            usage.add(1); // the tokens this call used, as they go out: settled when the stream ends, or is cut
            return token + "\n";
        });
    }

    /** A whole completion and the tokens it used: the answer itself reports them ({@link ReportsUsage}). */
    public record Completion(String text, int tokens) implements ReportsUsage {
        @Override
        public long used() {
            return tokens;
        }
    }

    /** A completion of {@code prompt} in one JSON answer, at most {@code max-tokens} tokens (1 to 4 000; 200 by default). */
    @GET
    @Path("whole")
    @RateLimited("completion-tokens")
    @Produces(MediaType.APPLICATION_JSON)
    @APIResponse(responseCode = "200", description = "The completion and the tokens it used")
    @APIResponse(responseCode = "400", description = "No X-Api-Key, no prompt, or max-tokens outside 1 to 4000")
    @APIResponse(responseCode = "429", ref = RateLimitApi.TOO_MANY_REQUESTS)
    public Uni<Completion> whole(@QueryParam("prompt") String prompt, @QueryParam("max-tokens") String maxTokens) {
        int max = maxTokens(maxTokens);
        if (prompt == null || prompt.isBlank() || max < 1 || max > 4000) {
            usage.report(0); // the model never saw it
            return Uni.createFrom().failure(new jakarta.ws.rs.WebApplicationException(problems.response(Problems.of(400,
                    "Bad Request", "bad-request", "Ask for a completion with ?prompt=..., optionally max-tokens=1..4000."))));
        }
        return model.complete(prompt, max, Duration.ZERO).collect().asList()
                .map(tokens -> new Completion(String.join(" ", tokens), tokens.size()));
    }
}
