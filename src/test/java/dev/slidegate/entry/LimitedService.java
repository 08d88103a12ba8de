package dev.slidegate.entry;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import jakarta.enterprise.context.ApplicationScoped;

import dev.slidegate.api.RateLimitKey;
import dev.slidegate.api.RateLimited;
import io.smallrye.mutiny.Uni;

/** A CDI bean with rate-limited methods, called outside HTTP by {@code BeanLimitTest}. */
@ApplicationScoped
public class LimitedService {

    @RateLimited(value = "bean-global", limits = "2/1h", key = "global")
    public String ping() {
        return "pong";
    }

    @RateLimited(value = "bean-tenant", limits = "2/1h")
    public String send(@RateLimitKey String tenant, String message) {
        return tenant + ":" + message;
    }

    @RateLimited(value = "bean-stage", limits = "1/1h", key = "global")
    public CompletionStage<String> async() {
        return CompletableFuture.completedFuture("done");
    }

    @RateLimited(value = "bean-uni", limits = "1/1h", key = "global")
    public Uni<String> uni() {
        return Uni.createFrom().item("done");
    }

    @RateLimited(value = "bean-rep-a", limits = "3/1h", key = "global")
    @RateLimited(value = "bean-rep-b", limits = "2/1h", key = "global")
    public String twice() {
        return "twice";
    }

    @RateLimited(value = "bean-rep-uni-a", limits = "2/1h", key = "global")
    @RateLimited(value = "bean-rep-uni-b", limits = "5/1h", key = "global")
    public Uni<String> twiceUni() {
        return Uni.createFrom().item("twice");
    }

    @RateLimited(value = "bean-rep-stage-a", limits = "5/1h", key = "global")
    @RateLimited(value = "bean-rep-stage-b", limits = "1/1h", key = "global")
    public CompletionStage<String> twiceStage() {
        return CompletableFuture.completedFuture("twice");
    }

    @RateLimited(value = "bean-ip", limits = "1/1h")
    public String needsARequest() {
        return "never";
    }
}
