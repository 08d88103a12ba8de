package dev.slidegate.demo;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.eclipse.microprofile.rest.client.inject.RestClient;

import dev.slidegate.http.Problem;
import io.smallrye.mutiny.Uni;

/**
 * {@code GET /api/quotes/{symbol}}: a quote from the partner API ({@link QuotesClient}), whose calls Slidegate paces. A
 * call that would wait longer than the {@code quotes} policy's max-wait is answered 429 by Slidegate at once, without
 * calling the partner; an error the partner answers (its own 429, if traffic Slidegate cannot see used its quota) is
 * passed on as 502 with a sentence.
 */
@Path("/api/quotes")
public class QuotesResource {

    private final QuotesClient partner;

    QuotesResource(@RestClient QuotesClient partner) {
        this.partner = partner;
    }

    @GET
    @Path("{symbol}")
    public Uni<Response> quote(@PathParam("symbol") String symbol) {
        return partner.quote(symbol)
                .map(body -> Response.ok(body, MediaType.APPLICATION_JSON_TYPE).build())
                .onFailure(WebApplicationException.class)
                .recoverWithItem(e -> Response.status(502).type(Problem.CONTENT_TYPE)
                        .entity("{\"title\":\"The partner API refused the call\",\"status\":502,\"detail\":\"it answered "
                                + ((WebApplicationException) e).getResponse().getStatus() + "\"}")
                        .build());
    }
}
