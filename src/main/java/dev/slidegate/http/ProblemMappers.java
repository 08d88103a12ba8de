package dev.slidegate.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

import jakarta.inject.Singleton;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.slidegate.api.MissingRateLimitKeyException;
import dev.slidegate.api.RateLimitExceededException;
import dev.slidegate.api.StoreUnavailableException;

/**
 * Turns Slidegate's exceptions into RFC 9457 problem responses: 429, 400 and 503, never a stack trace; and builds
 * every problem response Slidegate sends ({@link #response}). Requests the service's own endpoints could not read
 * are the service's: they get problem bodies only with {@code slidegate.http.problem-bodies=all}
 * ({@link UnreadableRequests}).
 */
@Singleton
public class ProblemMappers {

    private static final Logger LOG = Logger.getLogger(ProblemMappers.class);
    private static final MediaType PROBLEM = MediaType.valueOf(Problem.MEDIA_TYPE);

    private final JsonFactory factory;

    public ProblemMappers(ObjectMapper json) {
        this.factory = json.getFactory();
    }

    /** The response carrying {@code problem}: its status, Retry-After when it has one, and its JSON ({@link #json}). */
    public Response response(Problem problem) {
        Response.ResponseBuilder r = Response.status(problem.status()).type(PROBLEM).entity(json(problem));
        if (problem.retryAfter() != null) {
            r.header(HttpHeaders.RETRY_AFTER, problem.retryAfter());
        }
        return r.build();
    }

    /** Sends {@code problem} as the answer of a request handled outside the REST layer (a route handler). */
    public void send(io.vertx.core.http.HttpServerResponse response, Problem problem) {
        response.setStatusCode(problem.status()).putHeader(HttpHeaders.CONTENT_TYPE, Problem.MEDIA_TYPE);
        if (problem.retryAfter() != null) {
            response.putHeader(HttpHeaders.RETRY_AFTER, Long.toString(problem.retryAfter()));
        }
        response.end(io.vertx.core.buffer.Buffer.buffer(json(problem)));
    }

    /**
     * {@code problem} as JSON: its members in order, those without a value left out, as Jackson's object mapper
     * writes the record, but with the streaming generator of the service's factory (its escaping settings apply),
     * so that no naming strategy of the service renames the documented members ({@code retryAfter}).
     */
    byte[] json(Problem problem) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        try (JsonGenerator g = factory.createGenerator(out)) {
            g.writeStartObject();
            string(g, "type", problem.type());
            string(g, "title", problem.title());
            g.writeNumberField("status", problem.status());
            string(g, "detail", problem.detail());
            string(g, "policy", problem.policy());
            string(g, "limit", problem.limit());
            if (problem.retryAfter() != null) {
                g.writeNumberField("retryAfter", problem.retryAfter());
            }
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // writing to memory does not fail
        }
        return out.toByteArray();
    }

    private static void string(JsonGenerator g, String name, String value) throws IOException {
        if (value != null) {
            g.writeStringField(name, value);
        }
    }

    @ServerExceptionMapper
    public Response tooManyRequests(RateLimitExceededException e) {
        return response(Problems.rateLimited(e));
    }

    @ServerExceptionMapper
    public Response missingKey(MissingRateLimitKeyException e) {
        return response(Problems.missingKey(e.policy(), e.getMessage()));
    }

    @ServerExceptionMapper
    public Response storeUnavailable(StoreUnavailableException e) {
        LOG.debugf("Rate-limit store unavailable: %s", e.getMessage()); // the breaker logs outages once, not per request
        return response(Problems.storeUnavailable());
    }
}
