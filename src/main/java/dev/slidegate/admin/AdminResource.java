package dev.slidegate.admin;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;
import org.jboss.resteasy.reactive.RestStreamElementType;

import dev.slidegate.admin.AdminViews.KeyList;
import dev.slidegate.admin.AdminViews.KeyView;
import dev.slidegate.admin.AdminViews.Snapshot;
import dev.slidegate.api.Policy;
import dev.slidegate.core.LimiterStore;
import dev.slidegate.http.ProblemMappers;
import dev.slidegate.http.Problems;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;

/**
 * The operators' API: live window counts per policy and key, and resetting a key. Every endpoint
 * needs the role {@code slidegate-admin}; none consumes a permit.
 */
@Path("/admin")
@Tag(name = "Admin", description = "Live window counts and resets; needs the slidegate-admin role (HTTP Basic by default)")
@APIResponse(responseCode = "401", description = "No credentials, or wrong ones")
@APIResponse(responseCode = "403", description = "The user lacks the slidegate-admin role")
@RolesAllowed("slidegate-admin")
public class AdminResource {

    private final AdminService admin;
    private final ProblemMappers problems;

    AdminResource(AdminService admin, ProblemMappers problems) {
        this.admin = admin;
        this.problems = problems;
    }

    /**
     * For API clients, the summary: the store, and per policy its limits, active keys and decisions
     * since start. For browsers ({@code Accept: text/html}), the live page.
     */
    @GET
    @Produces({ MediaType.APPLICATION_JSON, MediaType.TEXT_HTML })
    public Uni<Response> summary(@HeaderParam(HttpHeaders.ACCEPT) String accept) {
        if (accept != null && accept.contains(MediaType.TEXT_HTML)) {
            return Uni.createFrom().item(Response.ok(page(), MediaType.TEXT_HTML_TYPE.withCharset("UTF-8")).build());
        }
        return admin.summary().map(s -> Response.ok(s, MediaType.APPLICATION_JSON_TYPE).build());
    }

    /** About once a second: every policy's counters and its busiest keys, for the live page. */
    @GET
    @Path("stream")
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @RestStreamElementType(MediaType.APPLICATION_JSON)
    public Multi<Snapshot> stream() {
        return Multi.createFrom().ticks().startingAfter(Duration.ofMillis(1)).every(Duration.ofSeconds(1))
                .onItem().transformToUniAndConcatenate(tick -> admin.snapshot(10));
    }

    private static String page() {
        try (InputStream in = AdminResource.class.getClassLoader().getResourceAsStream("META-INF/resources/admin/index.html")) {
            if (in == null) {
                throw new IllegalStateException("the admin page is missing from the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The active keys of a policy, a page at a time ({@code cursor} from the previous page), or with
     * {@code sort=usage} the callers closest to their limit first.
     */
    @GET
    @Path("policies/{policy}/keys")
    @Produces(MediaType.APPLICATION_JSON)
    public Uni<KeyList> keys(@PathParam("policy") String policy, @QueryParam("limit") @DefaultValue("100") int limit,
            @QueryParam("cursor") @DefaultValue("") String cursor, @QueryParam("sort") @DefaultValue("") String sort) {
        Policy p = known(policy);
        if (limit < 1 || limit > 1000) {
            throw badRequest("limit must be between 1 and 1000, was " + limit);
        }
        if (!sort.isEmpty() && !sort.equals("usage")) {
            throw badRequest("sort '" + sort + "' is not known: use sort=usage, or none for the store's order");
        }
        if (sort.equals("usage") && !cursor.isEmpty() && !cursor.matches("\\d{1,9}")) {
            throw badRequest("'" + cursor + "' is not a cursor of this listing");
        }
        return admin.keys(p, cursor, limit, sort.equals("usage"))
                .onFailure(IllegalArgumentException.class).transform(e -> badRequest(e.getMessage()));
    }

    /** One key: per limit, used, remaining and the time until the next permit frees. */
    @GET
    @Path("policies/{policy}/keys/{key: .+}")
    @Produces(MediaType.APPLICATION_JSON)
    public Uni<KeyView> key(@PathParam("policy") String policy, @PathParam("key") String key) {
        return admin.key(known(policy), storeKey(key));
    }

    /** Forgets everything recorded for one key: the caller starts afresh. */
    @DELETE
    @Path("policies/{policy}/keys/{key: .+}")
    public Uni<Response> reset(@PathParam("policy") String policy, @PathParam("key") String key) {
        return admin.reset(known(policy), storeKey(key)).map(v -> Response.noContent().build());
    }

    private Policy known(String name) {
        Policy p = admin.policy(name);
        if (p == null) {
            throw new WebApplicationException(problem(404, "Not Found", "There is no policy '" + name + "'; known: "
                    + admin.policies().keySet()));
        }
        return p;
    }

    /** A key as typed into the URL, checked as every store requires it (a 400 naming the rule, on every store). */
    private String storeKey(String key) {
        try {
            return LimiterStore.checkKey(key);
        } catch (IllegalArgumentException e) {
            throw badRequest("'" + key + "': " + e.getMessage());
        }
    }

    private WebApplicationException badRequest(String detail) {
        return new WebApplicationException(problem(400, "Bad Request", detail));
    }

    private Response problem(int status, String title, String detail) {
        return problems.response(Problems.of(status, title, status == 404 ? "not-found" : "bad-request", detail));
    }
}
