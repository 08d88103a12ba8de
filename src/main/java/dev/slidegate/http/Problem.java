package dev.slidegate.http;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * An RFC 9457 problem body ({@code application/problem+json}), with Slidegate's extension members.
 *
 * @param type a URI naming the kind of problem
 * @param title the short, fixed summary of that kind
 * @param status the HTTP status code
 * @param detail this occurrence, in a sentence
 * @param policy the rate-limit policy involved, if any
 * @param limit the limit that refused the call, e.g. {@code 500/2s}
 * @param retryAfter seconds to wait before retrying, as in {@code Retry-After}
 * @param violatedPolicies for the IETF draft's problem types ({@code quota-exceeded}, {@code temporary-reduced-capacity}):
 *        the quota policies involved, named as in the {@code RateLimit-Policy} field ({@code products-10s})
 */
@RegisterForReflection
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Problem(String type, String title, int status, String detail, String policy, String limit, Long retryAfter,
        @JsonProperty("violated-policies") List<String> violatedPolicies) {

    /** A problem that names no quota policy of the draft's. */
    public Problem(String type, String title, int status, String detail, String policy, String limit, Long retryAfter) {
        this(type, title, status, detail, policy, limit, retryAfter, null);
    }

    /** RFC 9457's media type, as an API description names it. */
    public static final String MEDIA_TYPE = "application/problem+json";

    /**
     * The {@code Content-Type} every problem answer carries: the media type with {@code charset=UTF-8}, as Quarkus REST
     * labels the JSON it writes itself. Given without it, RESTEasy Reactive adds the charset to its own copy of the type
     * three times for every answer (a new media type and its parameter maps each time: about 1 KB of every refusal).
     */
    public static final String CONTENT_TYPE = MEDIA_TYPE + ";charset=UTF-8";
}
