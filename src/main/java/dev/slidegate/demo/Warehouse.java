package dev.slidegate.demo;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import jakarta.enterprise.context.ApplicationScoped;

import dev.slidegate.api.RateLimited;

/**
 * The demo's stand-in for a slow downstream system that everyone shares: a CDI bean, not an endpoint,
 * limited by the {@code warehouse} policy ({@code key=global}), so that all callers together never ask
 * it more often than it can answer. A refused call fails the returned stage with a
 * {@link dev.slidegate.api.RateLimitExceededException}, which the endpoint answers with 429.
 */
@ApplicationScoped
public class Warehouse {

    @RateLimited("warehouse")
    public CompletionStage<Integer> unitsInStock(int productId) {
        return CompletableFuture.completedFuture(productId * 7 % 23);
    }
}
