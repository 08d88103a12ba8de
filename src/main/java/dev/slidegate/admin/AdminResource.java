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
import jakarta.ws.rs.PUT;
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
import dev.slidegate.admin.AdminViews.OverrideList;
import dev.slidegate.admin.AdminViews.OverrideView;
import dev.slidegate.admin.AdminViews.Snapshot;
import dev.slidegate.api.Policy;
import dev.slidegate.core.LimiterStore;
import dev.slidegate.http.ProblemMappers;
import dev.slidegate.http.Problems;
import io.quarkus.security.identity.SecurityIdentity;
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
    private final OverrideAdmin overrides;
    /** The caller, where the service has a security extension (the admin role needs one). */
    private final jakarta.enterprise.inject.Instance<SecurityIdentity> identity;

    AdminResource(AdminService admin, ProblemMappers problems, OverrideAdmin overrides,
            jakarta.enterprise.inject.Instance<SecurityIdentity> identity) {
        this.admin = admin;
        this.problems = problems;
        this.overrides = overrides;
        this.identity = identity;
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

    /**
     * About once a second: every policy's counters and its busiest keys, for the live page. One snapshot
     * serves every open page; a tick whose snapshot failed (Redis away) is skipped, never the end of the
     * stream.
     */
    @GET
    @Path("stream")
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @RestStreamElementType(MediaType.APPLICATION_JSON)
    public Multi<Snapshot> stream() {
        // a tick that comes while the previous snapshot is still being computed (a slow or frozen Redis) is
        // dropped: without that, ticks overflowed and ended the stream, and the page went quiet for good
        return Multi.createFrom().ticks().startingAfter(Duration.ofMillis(1)).every(Duration.ofSeconds(1))
                .onOverflow().drop()
                .onItem().transformToUniAndConcatenate(tick -> admin.sharedSnapshot(10).onFailure().recoverWithNull());
    }

    private static String page() {
        return new String(file("index.html"), StandardCharsets.UTF_8);
    }

    /**
     * One file of the live page, from the class path ({@code slidegate/admin/}). They are served here,
     * not as static resources: a static {@code admin} directory made Quarkus' dev mode answer
     * {@code GET /admin} with a redirect to {@code /admin/} instead of the summary.
     */
    private static byte[] file(String name) {
        try (InputStream in = AdminResource.class.getClassLoader().getResourceAsStream("slidegate/admin/" + name)) {
            if (in == null) {
                throw new IllegalStateException("the admin page's " + name + " is missing from the class path");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The live page's script. */
    @GET
    @Path("admin.js")
    @Produces("text/javascript")
    public Response script() {
        return Response.ok(file("admin.js"), "text/javascript;charset=UTF-8").header("Cache-Control", "no-cache").build();
    }

    /** The live page's style sheet. */
    @GET
    @Path("admin.css")
    @Produces("text/css")
    public Response styles() {
        return Response.ok(file("admin.css"), "text/css;charset=UTF-8").header("Cache-Control", "no-cache").build();
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
    @Path("policies/{policy}/keys/{key: [^/]+}")
    @Produces(MediaType.APPLICATION_JSON)
    public Uni<KeyView> key(@PathParam("policy") String policy, @PathParam("key") String key) {
        return admin.key(known(policy), storeKey(key));
    }

    /** Forgets everything recorded for one key: the caller starts afresh. */
    @DELETE
    @Path("policies/{policy}/keys/{key: [^/]+}")
    public Uni<Response> reset(@PathParam("policy") String policy, @PathParam("key") String key) {
        return admin.reset(known(policy), storeKey(key)).map(v -> Response.noContent().build());
    }

    /**
     * The overrides in force, a page at a time ({@code cursor} from the previous page): new limits, blocks and exemptions
     * made at runtime, with who set them and when they expire, by policy, plan and key.
     */
    @GET
    @Path("overrides")
    @Produces(MediaType.APPLICATION_JSON)
    public OverrideList overrides(@QueryParam("limit") @DefaultValue("1000") int limit,
            @QueryParam("cursor") @DefaultValue("") String cursor) {
        if (limit < 1 || limit > 10_000) {
            throw badRequest("limit must be between 1 and 10000, was " + limit);
        }
        if (!cursor.isEmpty() && !cursor.matches("\\d{1,9}")) {
            throw badRequest("'" + cursor + "' is not a cursor of this listing");
        }
        return overrides.list(cursor.isEmpty() ? 0 : Integer.parseInt(cursor), limit);
    }

    /** The override of a whole policy. */
    @GET
    @Path("policies/{policy}/override")
    @Produces(MediaType.APPLICATION_JSON)
    public OverrideView policyOverride(@PathParam("policy") String policy) {
        return checked(() -> overrides.get(overrides.target(policy, null, null)));
    }

    /**
     * Sets the override of a whole policy, replacing any: {@code {"limits": ["3/1m"], "expiresIn": 3600,
     * "reason": "…"}}, {@code {"block": true, "expiresIn": 600}} or {@code {"exempt": true}}.
     */
    @PUT
    @Path("policies/{policy}/override")
    @Produces(MediaType.APPLICATION_JSON)
    @APIResponse(responseCode = "400", description = "The body or the target is not valid; nothing changed")
    @APIResponse(responseCode = "404", description = "No such policy or plan")
    @APIResponse(responseCode = "415", description = "The body is not sent as application/json; nothing changed")
    public Uni<OverrideView> setPolicyOverride(@PathParam("policy") String policy,
            @HeaderParam(HttpHeaders.CONTENT_TYPE) String type, String body) {
        return put(policy, null, null, type, body);
    }

    /** Removes the override of a whole policy. */
    @DELETE
    @Path("policies/{policy}/override")
    public Uni<Response> deletePolicyOverride(@PathParam("policy") String policy) {
        return delete(policy, null, null);
    }

    /** The override of one plan of a policy. */
    @GET
    @Path("policies/{policy}/plans/{plan}/override")
    @Produces(MediaType.APPLICATION_JSON)
    public OverrideView planOverride(@PathParam("policy") String policy, @PathParam("plan") String plan) {
        return checked(() -> overrides.get(overrides.target(policy, plan, null)));
    }

    /** Sets the override of one plan of a policy (body as for the policy's). */
    @PUT
    @Path("policies/{policy}/plans/{plan}/override")
    @Produces(MediaType.APPLICATION_JSON)
    public Uni<OverrideView> setPlanOverride(@PathParam("policy") String policy, @PathParam("plan") String plan,
            @HeaderParam(HttpHeaders.CONTENT_TYPE) String type, String body) {
        return put(policy, plan, null, type, body);
    }

    /** Removes the override of one plan of a policy. */
    @DELETE
    @Path("policies/{policy}/plans/{plan}/override")
    public Uni<Response> deletePlanOverride(@PathParam("policy") String policy, @PathParam("plan") String plan) {
        return delete(policy, plan, null);
    }

    /** The override of one caller key (as the listing shows it, e.g. {@code ip:203.0.113.7}). */
    @GET
    @Path("policies/{policy}/keys/{key: [^/]+}/override")
    @Produces(MediaType.APPLICATION_JSON)
    public OverrideView keyOverride(@PathParam("policy") String policy, @PathParam("key") String key) {
        return checked(() -> overrides.get(overrides.target(policy, null, key)));
    }

    /** Sets the override of one caller key (body as for the policy's). */
    @PUT
    @Path("policies/{policy}/keys/{key: [^/]+}/override")
    @Produces(MediaType.APPLICATION_JSON)
    public Uni<OverrideView> setKeyOverride(@PathParam("policy") String policy, @PathParam("key") String key,
            @HeaderParam(HttpHeaders.CONTENT_TYPE) String type, String body) {
        return put(policy, null, key, type, body);
    }

    /**
     * A key path with a raw {@code /} after the key: a key holding {@code /} is written {@code %2F}, so that
     * {@code keys/hdr:abc/override} can only mean the override of {@code hdr:abc}.
     */
    @GET
    @Path("policies/{policy}/keys/{key: [^/]+}/{rest: .+}")
    public Response keyWithSlash(@PathParam("key") String key, @PathParam("rest") String rest) {
        throw slashInKey(key, rest);
    }

    /** As {@link #keyWithSlash}. */
    @PUT
    @Path("policies/{policy}/keys/{key: [^/]+}/{rest: .+}")
    public Response putKeyWithSlash(@PathParam("key") String key, @PathParam("rest") String rest) {
        throw slashInKey(key, rest);
    }

    /** As {@link #keyWithSlash}. */
    @DELETE
    @Path("policies/{policy}/keys/{key: [^/]+}/{rest: .+}")
    public Response deleteKeyWithSlash(@PathParam("key") String key, @PathParam("rest") String rest) {
        throw slashInKey(key, rest);
    }

    private WebApplicationException slashInKey(String key, String rest) {
        return new WebApplicationException(problems.response(Problems.of(404, "Not Found", "not-found",
                "There is no resource '" + rest + "' of a key: a key holding '/' is written %2F in the path ("
                        + key + "%2F" + rest + ")")));
    }

    /** Removes the override of one caller key. */
    @DELETE
    @Path("policies/{policy}/keys/{key: [^/]+}/override")
    public Uni<Response> deleteKeyOverride(@PathParam("policy") String policy, @PathParam("key") String key) {
        return delete(policy, null, key);
    }

    private Uni<OverrideView> put(String policy, String plan, String key, String type, String body) {
        return refusedAsProblem(Uni.createFrom().deferred(() -> {
            if (!json(type)) {
                throw new OverrideAdmin.Refused(415, "The body is sent as '" + type
                        + "': an override is JSON, sent with Content-Type: application/json");
            }
            return overrides.put(overrides.target(policy, plan, key), body, who());
        }));
    }

    /** Whether a Content-Type says JSON (any parameters, such as a charset). */
    private static boolean json(String type) {
        try {
            MediaType t = type == null ? null : MediaType.valueOf(type);
            return t != null && !t.isWildcardType() && !t.isWildcardSubtype()
                    && MediaType.APPLICATION_JSON_TYPE.isCompatible(t);
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private Uni<Response> delete(String policy, String plan, String key) {
        return refusedAsProblem(Uni.createFrom().deferred(() -> overrides.delete(overrides.target(policy, plan, key), who())))
                .map(v -> Response.noContent().build());
    }

    private String who() {
        if (!identity.isResolvable()) {
            return "unknown";
        }
        SecurityIdentity who = identity.get();
        return who.isAnonymous() ? "anonymous" : who.getPrincipal().getName();
    }

    private <T> T checked(java.util.function.Supplier<T> call) {
        try {
            return call.get();
        } catch (OverrideAdmin.Refused e) {
            throw refused(e);
        }
    }

    private <T> Uni<T> refusedAsProblem(Uni<T> call) {
        return call.onFailure(OverrideAdmin.Refused.class).transform(e -> refused((OverrideAdmin.Refused) e));
    }

    private WebApplicationException refused(OverrideAdmin.Refused e) {
        String title = switch (e.status) {
            case 404 -> "Not Found";
            case 409 -> "Conflict";
            case 415 -> "Unsupported Media Type";
            case 503 -> "Service Unavailable";
            default -> "Bad Request";
        };
        return new WebApplicationException(problems.response(Problems.of(e.status, title, e.kind, e.getMessage())));
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
