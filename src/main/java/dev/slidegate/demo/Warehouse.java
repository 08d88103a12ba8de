package dev.slidegate.demo;

import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import jakarta.enterprise.context.ApplicationScoped;

import dev.slidegate.api.RateLimited;

/**
 * The demo's stand-in for a slow downstream system that everyone shares: a CDI bean, not an endpoint,
 * limited by the {@code warehouse} policy ({@code key=global}), so that all callers together never ask
 * it more often than it can answer. Its policy lets a call wait up to {@code max-wait} for its permit
 * (the call is held, without a thread, until the warehouse may be asked); one that would wait longer
 * fails the returned stage at once with a {@link dev.slidegate.api.RateLimitExceededException}, which
 * the endpoint answers with 429.
 */
@ApplicationScoped
public class Warehouse {

    /**
     * What the warehouse said, and when it was asked (the instant this method ran, on the wall clock): where its
     * callers' waits end, so that the limit can be checked where the warehouse sees it.
     */
    public record Stock(int units, Instant askedAt) {
    }

    @RateLimited("warehouse")
    public CompletionStage<Stock> unitsInStock(int productId) {
        return CompletableFuture.completedFuture(new Stock(productId * 7 % 23, Instant.now()));
    }
}
