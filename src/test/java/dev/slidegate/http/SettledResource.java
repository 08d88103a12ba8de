package dev.slidegate.http;

import java.time.Duration;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.QueryParam;

import dev.slidegate.api.RateLimited;
import dev.slidegate.api.Usage;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;

/**
 * Endpoints whose usage is known once they ran (issue 41): each reports what it used, as a model's client would. Their
 * policies are whole in the annotations, so that every test profile starts; {@link SmallLimits} makes them settle.
 */
@Path("/test/settled")
public class SettledResource {

    @Inject
    Usage usage;
    @Inject
    Model model;

    /** Reports {@code used} tokens, unless it is negative; fails after reporting with {@code fail}. */
    @GET
    @Path("blocking")
    @RateLimited(value = "llm", limits = "1000/1h", strategy = "sliding-counter", cost = 100, unit = "tokens")
    public String blocking(@QueryParam("used") long used, @QueryParam("fail") boolean fail) {
        if (used >= 0) {
            usage.report(used);
        }
        if (fail) {
            throw new IllegalStateException("the model failed");
        }
        return "used " + used;
    }

    /** Streams {@code chunks} chunks of {@code each} tokens, adding each one to the usage as it goes out. */
    @GET
    @Path("stream")
    @RateLimited(value = "llm", limits = "1000/1h", strategy = "sliding-counter", cost = 100, unit = "tokens")
    public Multi<String> stream(@QueryParam("chunks") int chunks, @QueryParam("each") int each) {
        return Multi.createFrom().range(0, chunks).onItem().call(i -> Uni.createFrom().voidItem().onItem()
                .delayIt().by(Duration.ofMillis(5))).map(i -> {
                    usage.add(each);
                    return "chunk " + i + "\n";
                });
    }

    /**
     * A completion whose estimate is the {@code max-tokens} the caller asks for ({@link dev.slidegate.api.RateLimitCost}),
     * settled with {@code used}.
     */
    @GET
    @Path("estimate")
    @RateLimited(value = "llm", limits = "1000/1h", strategy = "sliding-counter", cost = 100, unit = "tokens")
    public String estimate(@dev.slidegate.api.RateLimitCost @QueryParam("max-tokens") Integer maxTokens,
            @QueryParam("used") long used) {
        usage.report(used);
        return "used " + used;
    }

    /** An answer that says what it used ({@link dev.slidegate.api.ReportsUsage}). */
    public record Completion(String text, long tokens) implements dev.slidegate.api.ReportsUsage {
        @Override
        public long used() {
            return tokens;
        }
    }

    /** A completion whose item reports its usage. */
    @GET
    @Path("uni-report")
    @RateLimited(value = "llm", limits = "1000/1h", strategy = "sliding-counter", cost = 100, unit = "tokens")
    public Uni<Completion> uniReport(@QueryParam("used") long used) {
        return Uni.createFrom().item(new Completion("done", used));
    }

    /** A stream whose items each report what they used, added up. */
    @GET
    @Path("multi-report")
    @RateLimited(value = "llm", limits = "1000/1h", strategy = "sliding-counter", cost = 100, unit = "tokens")
    public Multi<Completion> multiReport(@QueryParam("chunks") int chunks, @QueryParam("each") long each) {
        return Multi.createFrom().range(0, chunks).map(i -> new Completion("chunk " + i, each));
    }

    /** A bean method whose stage's value reports its usage, decided by the interceptor. */
    @GET
    @Path("stage-report")
    public java.util.concurrent.CompletionStage<String> stageReport(@QueryParam("used") long used) {
        return model.completeLater(used).thenApply(Completion::text);
    }

    /** Fails without reporting: refunded under {@code llm-refund}, whose failures refund. */
    @GET
    @Path("refund")
    @RateLimited(value = "llm-refund", limits = "1000/10h", strategy = "token-bucket", cost = 100)
    public String refund(@QueryParam("fail") boolean fail) {
        if (fail) {
            throw new IllegalStateException("the model failed");
        }
        return "estimate";
    }

    /** A bean method the endpoint calls: decided by the interceptor during the request, settled when it returns. */
    @GET
    @Path("bean")
    public Uni<String> bean(@QueryParam("used") long used) {
        return model.complete(used);
    }

    @ApplicationScoped
    public static class Model {

        @Inject
        Usage usage;

        @RateLimited(value = "llm-bean", limits = "1000/1h", strategy = "fixed-window", key = "global", cost = 100)
        public java.util.concurrent.CompletionStage<Completion> completeLater(long used) {
            return java.util.concurrent.CompletableFuture.completedFuture(new Completion("later " + used, used));
        }

        @RateLimited(value = "llm-bean", limits = "1000/1h", strategy = "fixed-window", key = "global", cost = 100)
        public Uni<String> complete(long used) {
            usage.report(used);
            return Uni.createFrom().item("completed " + used);
        }
    }
}
