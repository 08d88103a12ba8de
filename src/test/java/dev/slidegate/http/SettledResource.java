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

    /**
     * Says what it used in the response header {@code X-Tokens-Used} (the raw {@code said}, a number or not), as an
     * endpoint in front of a model that reports usage in a header would; {@code llm-header} reads it.
     */
    @GET
    @Path("header")
    @RateLimited(value = "llm-header", limits = "1000/1h", strategy = "sliding-counter", cost = 100, unit = "tokens")
    public jakarta.ws.rs.core.Response header(@QueryParam("said") String said) {
        return jakarta.ws.rs.core.Response.ok("said " + said).header("X-Tokens-Used", said).build();
    }

    /**
     * As {@link #header}, with its estimate from the request: decided by the interceptor, which returns before the
     * response is written, so it settles when the response is done.
     */
    @GET
    @Path("header-estimate")
    @RateLimited(value = "llm-header", limits = "1000/1h", strategy = "sliding-counter", cost = 100, unit = "tokens")
    public jakarta.ws.rs.core.Response headerEstimate(@dev.slidegate.api.RateLimitCost @QueryParam("max-tokens") int max,
            @QueryParam("said") String said) {
        return jakarta.ws.rs.core.Response.ok("said " + said).header("X-Tokens-Used", said).build();
    }

    /**
     * A per-hour burst counted by a sliding counter beside a monthly budget (a calendar period, which a fixed window
     * counts): two policies, both settled with {@code used}.
     */
    @GET
    @Path("burst-and-month")
    @RateLimited(value = "llm-burst", limits = "1000/1h", strategy = "sliding-counter", cost = 100, unit = "tokens")
    @RateLimited(value = "llm-month", limits = "250/month", strategy = "fixed-window", cost = 100, unit = "tokens")
    public String burstAndMonth(@QueryParam("used") long used) {
        usage.report(used);
        return "used " + used;
    }

    /** Estimated by the {@code prompt} resolver from the request (before dispatch), settled with {@code used}. */
    @GET
    @Path("prompt")
    @RateLimited(value = "llm-prompt", limits = "1000/1h", strategy = "token-bucket", unit = "tokens")
    public String prompt(@QueryParam("prompt") String prompt, @QueryParam("used") long used) {
        usage.report(used);
        return "used " + used;
    }

    /** Estimated by the {@code first-argument} resolver from the call's arguments (decided by the interceptor). */
    @GET
    @Path("argument")
    @RateLimited(value = "llm-argument", limits = "1000/1h", strategy = "fixed-window", unit = "tokens")
    public String argument(@QueryParam("max") long max) {
        return "estimate " + max;
    }

    /** A prompt's estimate: a token per 4 characters of the {@code prompt} parameter, and 50 for the answer. */
    @jakarta.inject.Named("prompt")
    @jakarta.inject.Singleton
    public static class PromptEstimate implements dev.slidegate.api.CostResolver {
        @Override
        public long cost(dev.slidegate.api.KeyResolver.Call call) {
            String prompt = call.request().queryParam("prompt");
            return (prompt == null ? 0 : prompt.length() / 4) + 50;
        }

        @Override
        public boolean fromRequestAlone() {
            return true;
        }
    }

    /** The call's first argument as its cost: it needs the arguments, so its endpoint is decided by the interceptor. */
    @jakarta.inject.Named("first-argument")
    @jakarta.inject.Singleton
    public static class FirstArgument implements dev.slidegate.api.CostResolver {
        @Override
        public long cost(dev.slidegate.api.KeyResolver.Call call) {
            if (call.arguments().length == 0) {
                throw new IllegalStateException("called before the endpoint's arguments were known");
            }
            return ((Number) call.arguments()[0]).longValue();
        }
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
