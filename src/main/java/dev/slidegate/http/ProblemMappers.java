package dev.slidegate.http;

import dev.slidegate.core.Decision;
import dev.slidegate.core.Limit;
import dev.slidegate.core.RateLimitExceededException;
import dev.slidegate.core.StoreUnavailableException;
import dev.slidegate.interceptor.MissingRateLimitKeyException;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/** Turns Slidegate's exceptions into RFC 9457 problem responses: 429, 400 and 503, never a stack trace. */
public class ProblemMappers {

    private static final Logger LOG = Logger.getLogger(ProblemMappers.class);
    private static final String TYPES = "https://slidegate.dev/problems/";

    @ServerExceptionMapper
    public Response tooManyRequests(RateLimitExceededException e) {
        Decision d = e.decision();
        String limit = d.trippedLimit().map(Limit::toString).orElse(null);
        long retry = d.retryAfterSeconds();
        String detail = "Policy '" + d.policy().name() + "' allows " + (limit == null ? "fewer calls" : describe(d.trippedLimit().get()))
                + " per caller; retry in " + retry + " s.";
        Problem body = new Problem(TYPES + "rate-limited", "Too Many Requests", 429, detail, d.policy().name(), limit, retry);
        return Response.status(429).header(HttpHeaders.RETRY_AFTER, retry).type(Problem.MEDIA_TYPE).entity(body).build();
    }

    @ServerExceptionMapper
    public Response missingKey(MissingRateLimitKeyException e) {
        Problem body = new Problem(TYPES + "missing-key", "Missing rate-limit key", 400, e.getMessage(), e.policy(), null, null);
        return Response.status(400).type(Problem.MEDIA_TYPE).entity(body).build();
    }

    @ServerExceptionMapper
    public Response storeUnavailable(StoreUnavailableException e) {
        LOG.warnf("Rate-limit store unavailable: %s", e.getMessage());
        Problem body = new Problem(TYPES + "store-unavailable", "Rate limiter unavailable", 503,
                "The rate limiter could not decide this request; retry shortly.", null, null, 1L);
        return Response.status(503).header(HttpHeaders.RETRY_AFTER, 1).type(Problem.MEDIA_TYPE).entity(body).build();
    }

    private static String describe(Limit l) {
        return l.permits() + (l.permits() == 1 ? " call per " : " calls per ") + l.windowText();
    }
}
