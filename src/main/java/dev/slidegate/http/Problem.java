package dev.slidegate.http;

import com.fasterxml.jackson.annotation.JsonInclude;

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
 */
@RegisterForReflection
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Problem(String type, String title, int status, String detail, String policy, String limit, Long retryAfter) {

    public static final String MEDIA_TYPE = "application/problem+json";
}
