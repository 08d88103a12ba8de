package dev.slidegate.http;

import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import io.vertx.ext.web.Router;

/**
 * Requests the HTTP layer refuses before any route sees them, answered with a problem body and never
 * an ERROR line: an HTTP/1.1 request without {@code Host} (RFC 9112, 3.2) is the caller's mistake, so
 * a caller who sends many must not flood the log (Quarkus' error handler logs each at ERROR with an
 * error id, and answers a body that is not a problem). Only with {@code slidegate.http.problem-bodies=all}: otherwise
 * these requests are the service's, answered as Quarkus answers them.
 */
@Singleton
class MalformedRequests {

    private static final Logger LOG = Logger.getLogger(MalformedRequests.class);

    private final ProblemMappers problems;
    private final boolean on;

    MalformedRequests(ProblemMappers problems, dev.slidegate.config.SlidegateConfig config) {
        this.problems = problems;
        this.on = config.http().problemBodies().trim().equals("all");
    }

    void register(@Observes Router router) {
        if (!on) {
            return;
        }
        router.route().order(Integer.MIN_VALUE).failureHandler(rc -> {
            Throwable failure = rc.failure();
            String message = failure == null ? null : failure.getMessage();
            if (message != null && message.contains("'Host' header is required") && !rc.response().ended()) {
                LOG.debugf("Refused an HTTP/1.1 request without Host from %s", rc.request().remoteAddress());
                problems.send(rc.response().putHeader("Connection", "close"), Problems.of(400, "Bad Request", "bad-request",
                        "An HTTP/1.1 request must name its host: send a Host header (RFC 9112, section 3.2)"));
            } else {
                rc.next();
            }
        });
    }
}
