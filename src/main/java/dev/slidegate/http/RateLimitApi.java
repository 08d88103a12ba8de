package dev.slidegate.http;

import java.util.Map;

import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.OASFilter;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.headers.Header;
import org.eclipse.microprofile.openapi.models.media.Schema;
import org.eclipse.microprofile.openapi.models.responses.APIResponse;

import io.quarkus.smallrye.openapi.OpenApiFilter;

/**
 * The OpenAPI description's shared parts: the responses every rate-limited operation can give
 * ({@code 429} with its problem body and the RateLimit, RateLimit-Policy and Retry-After fields;
 * {@code 503} when no store can decide) and those headers. Operations refer to them:
 * {@code @APIResponse(responseCode = "429", ref = RateLimitApi.TOO_MANY_REQUESTS)}.
 * <p>
 * The parts are fixed, so the filter runs once, when the service is built: the document the
 * executable starts from already holds them. It is registered by annotation, not through
 * {@code mp.openapi.filter}, which holds a single class: a service that names its own filter there
 * keeps Slidegate's. Without {@code quarkus-smallrye-openapi} in the service the annotation is inert.
 */
@OpenApiFilter(stages = OpenApiFilter.RunStage.BUILD)
public final class RateLimitApi implements OASFilter {

    /** The 429 response of a limited operation. */
    public static final String TOO_MANY_REQUESTS = "#/components/responses/TooManyRequests";
    /** The 503 response of a limited operation whose policy fails closed. */
    public static final String UNAVAILABLE = "#/components/responses/RateLimiterUnavailable";

    @Override
    public void filterOpenAPI(OpenAPI api) {
        if (!org.eclipse.microprofile.config.ConfigProvider.getConfig().getOptionalValue("slidegate.openapi.enabled",
                Boolean.class).orElse(true)) {
            return; // the service's document stays exactly as its own annotations make it
        }
        if (api.getComponents() == null) {
            api.setComponents(OASFactory.createComponents());
        }
        var c = api.getComponents();
        c.addHeader("RateLimit",
                header("Remaining quota per limit: \"<policy>-<window>\";r=<remaining>;t=<seconds until a permit "
                        + "frees>, e.g. \"products-2s\";r=4;t=2 (draft-ietf-httpapi-ratelimit-headers)",
                        Schema.SchemaType.STRING));
        c.addHeader("RateLimit-Policy",
                header("The limits of the policy: \"<policy>-<window>\";q=<permits>;w=<window seconds>, "
                        + "e.g. \"products-2s\";q=500;w=2", Schema.SchemaType.STRING));
        c.addHeader("Retry-After", header("Seconds to wait before the call can pass", Schema.SchemaType.INTEGER));
        if (c.getSchemas() == null || !c.getSchemas().containsKey("Problem")) {
            c.addSchema("Problem", OASFactory.createSchema().type(java.util.List.of(Schema.SchemaType.OBJECT))
                    .description("An RFC 9457 problem body")
                    .properties(Map.of("type", string("A URI naming the kind of problem"), "title",
                            string("The kind of problem, fixed"),
                            "status",
                            OASFactory.createSchema().type(java.util.List.of(Schema.SchemaType.INTEGER))
                                    .description("The HTTP status"),
                            "detail", string("This occurrence, in a sentence"), "policy", string("The rate-limit policy"),
                            "limit", string("The limit that refused the call, e.g. 500/2s"),
                            "retryAfter", OASFactory.createSchema().type(java.util.List.of(Schema.SchemaType.INTEGER))
                                    .description("Seconds to wait, as Retry-After"))));
        }
        c.addResponse("TooManyRequests", problem("The caller is over a limit of the operation's policy; nothing was charged "
                + "(unless the policy counts refused calls)").addHeader("RateLimit", ref("RateLimit"))
                .addHeader("RateLimit-Policy", ref("RateLimit-Policy")).addHeader("Retry-After", ref("Retry-After")));
        c.addResponse("RateLimiterUnavailable", problem("The shared store (Redis) cannot decide and the policy fails closed")
                .addHeader("Retry-After", ref("Retry-After")));
    }

    private static Schema string(String description) {
        return OASFactory.createSchema().type(java.util.List.of(Schema.SchemaType.STRING)).description(description);
    }

    private static Header header(String description, Schema.SchemaType type) {
        return OASFactory.createHeader().description(description)
                .schema(OASFactory.createSchema().type(java.util.List.of(type)));
    }

    private static Header ref(String name) {
        return OASFactory.createHeader().ref("#/components/headers/" + name);
    }

    private static APIResponse problem(String description) {
        return OASFactory.createAPIResponse().description(description)
                .content(OASFactory.createContent().addMediaType(Problem.MEDIA_TYPE,
                        OASFactory.createMediaType().schema(OASFactory.createSchema().ref("#/components/schemas/Problem"))));
    }
}
