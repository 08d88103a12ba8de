package dev.slidegate.client;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

import dev.slidegate.api.RateLimited;

/**
 * A client of {@link TokenProvider} paced in tokens as the provider counts them ({@code provider-tokens}: unit tokens,
 * each call charged what its request may use, llm-request, not settled, up to 3 s of waiting) and in requests
 * ({@code provider-requests}), which learn the provider's quotas from its answers; their configured limits are far above
 * them.
 */
@RegisterRestClient(configKey = "token-provider")
@Path("/test/token-provider/v1")
public interface TokenProviderClient {

    @POST
    @Path("chat/completions")
    @Consumes(MediaType.APPLICATION_JSON)
    @RateLimited(value = "provider-tokens", limits = "1000000/1s", maxWait = "3s")
    @RateLimited(value = "provider-requests", limits = "1000000/1s", maxWait = "3s")
    String complete(String request);
}
