package dev.slidegate.client;

import java.util.List;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.QueryParam;

import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

import dev.slidegate.api.RateLimitKey;
import dev.slidegate.api.RateLimited;
import io.smallrye.mutiny.Uni;

/** A REST client of {@link EchoUpstream}, paced by Slidegate: the policies are configured in {@code SmallLimits}. */
@RegisterRestClient(configKey = "echo-upstream")
@Path("/test/upstream")
public interface EchoClient {

    /** Calls wait for their permits (max-wait 3s), one quota for the client. */
    @GET
    @Path("echo")
    @RateLimited("echo")
    String waiting(@QueryParam("status") int status, @QueryParam("h") List<String> headers);

    /** As {@link #waiting}, returning a {@code Uni}: nothing blocks. */
    @GET
    @Path("echo")
    @RateLimited("echo")
    Uni<String> waitingAsync(@QueryParam("status") int status, @QueryParam("h") List<String> headers);

    /** One quota per tenant, refused at once (max-wait 0). */
    @GET
    @Path("echo")
    @RateLimited("echo-tenant")
    String tenant(@RateLimitKey @QueryParam("tenant") String tenant, @QueryParam("status") int status,
            @QueryParam("h") List<String> headers);
}
