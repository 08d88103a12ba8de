package dev.slidegate.client;

import java.util.List;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.QueryParam;

import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

import dev.slidegate.api.RateLimitKey;
import dev.slidegate.api.RateLimited;
import io.smallrye.mutiny.Uni;

/**
 * A REST client of {@link EchoUpstream}, paced by Slidegate. Its policies are whole in their annotations: the class is
 * in every test service, whatever profile configures it.
 */
@RegisterRestClient(configKey = "echo-upstream")
@Path("/test/upstream")
public interface EchoClient {

    /** Calls wait for their permits (max-wait 3s), one quota for the client. */
    @GET
    @Path("echo")
    @RateLimited(value = "echo", limits = "100/1m", maxWait = "3s")
    String waiting(@QueryParam("status") int status, @QueryParam("h") List<String> headers);

    /** As {@link #waiting}, returning a {@code Uni}: nothing blocks. */
    @GET
    @Path("echo")
    @RateLimited(value = "echo", limits = "100/1m", maxWait = "3s")
    Uni<String> waitingAsync(@QueryParam("status") int status, @QueryParam("h") List<String> headers);

    /** One quota per tenant, refused at once (max-wait 0). */
    @GET
    @Path("echo")
    @RateLimited(value = "echo-tenant", limits = "100/1m")
    String tenant(@RateLimitKey @QueryParam("tenant") String tenant, @QueryParam("status") int status,
            @QueryParam("h") List<String> headers);

    /** As {@link #tenant}, returning a {@code Uni}: the response is read under the same key. */
    @GET
    @Path("echo")
    @RateLimited(value = "echo-tenant", limits = "100/1m")
    Uni<String> tenantAsync(@RateLimitKey @QueryParam("tenant") String tenant, @QueryParam("status") int status,
            @QueryParam("h") List<String> headers);

    /**
     * An LLM provider's calls, one quota per tenant: calls (echo-rpm) and tokens (echo-tpm, unit tokens, 1 000 a call),
     * each learning the provider's quota of what it counts.
     */
    @GET
    @Path("echo")
    @RateLimited(value = "echo-rpm", limits = "100/1m")
    @RateLimited(value = "echo-tpm", limits = "100000/1m", cost = 1000)
    String tokens(@RateLimitKey @QueryParam("tenant") String tenant, @QueryParam("status") int status,
            @QueryParam("h") List<String> headers);
}
