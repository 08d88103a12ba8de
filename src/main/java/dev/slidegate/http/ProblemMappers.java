package dev.slidegate.http;

import dev.slidegate.core.RateLimitExceededException;
import dev.slidegate.core.StoreUnavailableException;
import dev.slidegate.interceptor.MissingRateLimitKeyException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/** Turns Slidegate's exceptions, and malformed JSON bodies, into RFC 9457 problem responses: 429, 400 and 503, never a stack trace. */
public class ProblemMappers {

    private static final Logger LOG = Logger.getLogger(ProblemMappers.class);

    @ServerExceptionMapper
    public Response tooManyRequests(RateLimitExceededException e) {
        return response(Problems.rateLimited(e));
    }

    /** The response carrying {@code problem}: its status, its body, and Retry-After when it has one. */
    public static Response response(Problem problem) {
        return response(problem, problem);
    }

    /** The response of {@code problem} with {@code body} as its entity: the problem itself, or its JSON already written. */
    public static Response response(Problem problem, Object body) {
        Response.ResponseBuilder r = Response.status(problem.status()).type(PROBLEM).entity(body);
        if (problem.retryAfter() != null) {
            r.header(HttpHeaders.RETRY_AFTER, problem.retryAfter());
        }
        return r.build();
    }

    private static final MediaType PROBLEM = MediaType.valueOf(Problem.MEDIA_TYPE);

    @ServerExceptionMapper
    public Response missingKey(MissingRateLimitKeyException e) {
        return Response.status(400).type(Problem.MEDIA_TYPE).entity(Problems.missingKey(e.policy(), e.getMessage())).build();
    }

    @ServerExceptionMapper
    public Response storeUnavailable(StoreUnavailableException e) {
        LOG.debugf("Rate-limit store unavailable: %s", e.getMessage()); // the breaker logs outages once, not per request
        return Response.status(503).header(HttpHeaders.RETRY_AFTER, 1).type(Problem.MEDIA_TYPE).entity(Problems.storeUnavailable()).build();
    }

    /**
     * A request the framework could not read (malformed JSON, a body of the wrong shape, a bad
     * parameter): the client's error, said in a problem body instead of an empty 400.
     */
    @ServerExceptionMapper
    public Response badRequest(WebApplicationException e) {
        if (e.getResponse().getStatus() != 400 || e.getResponse().hasEntity()) {
            return e.getResponse(); // everything else as the framework meant it
        }
        Throwable cause = e.getCause();
        return cause instanceof JsonProcessingException json ? badJson(json)
                : badRequest("The request could not be read" + (cause == null || cause.getMessage() == null ? "." : ": " + cause.getMessage()));
    }

    /** A JSON body of the wrong shape (an array for an object, a string for a number). */
    @ServerExceptionMapper
    public Response badJson(MismatchedInputException e) {
        return badJson((JsonProcessingException) e);
    }

    private static Response badJson(JsonProcessingException e) {
        return badRequest("The request body is not valid JSON of the expected shape: " + e.getOriginalMessage());
    }

    private static Response badRequest(String detail) {
        Problem body = Problems.of(400, "Bad Request", "bad-request", detail);
        return Response.status(400).type(Problem.MEDIA_TYPE).entity(body).build();
    }
}
