package dev.slidegate.demo;

import jakarta.inject.Named;
import jakarta.inject.Singleton;

import dev.slidegate.api.CostResolver;
import dev.slidegate.api.KeyResolver;

/**
 * The estimate a completion is admitted against: the {@code max-tokens} it asks for (200 when it names none), the most
 * its answer can use; 1 for a value the endpoint will refuse (its 400 reports 0 used, so it is refunded). Settled with
 * what the answer used.
 */
@Named("max-tokens")
@Singleton
public class MaxTokensEstimate implements CostResolver {

    @Override
    public long cost(KeyResolver.Call call) { // (a value below 1 costs 1)
        return CompletionResource.maxTokens(call.request() == null ? null : call.request().queryParam("max-tokens"));
    }

    @Override
    public boolean fromRequestAlone() {
        return true;
    }
}
