package dev.slidegate.entry;

import org.jboss.resteasy.reactive.server.spi.ResteasyReactiveContainerRequestContext;

import dev.slidegate.engine.Outcome;
import dev.slidegate.http.HttpDecisions;
import dev.slidegate.http.Problem;
import dev.slidegate.http.ProblemMappers;
import dev.slidegate.http.Problems;
import io.vertx.ext.web.RoutingContext;

/** The HTTP side of an {@link Outcome}: its RateLimit fields on the response, and the problem that answers a refusal. */
final class HttpOutcomes {

    private HttpOutcomes() {
    }

    /** Gives the response of {@code rc} the RateLimit fields of every decision made for the call. */
    static void record(Outcome o, RoutingContext rc) {
        if (rc != null) {
            java.util.List<dev.slidegate.api.Decision> decisions = o.decisions();
            for (int i = 0; i < decisions.size(); i++) { // (by index: no iterator for every request)
                HttpDecisions.record(rc, decisions.get(i));
            }
        }
    }

    /** Takes back the RateLimit fields of {@code o}'s decisions from the response of {@code rc}: the call is decided again. */
    static void forget(Outcome o, RoutingContext rc) {
        if (rc != null) {
            HttpDecisions.forget(rc, o.decisions());
        }
    }

    /**
     * Ends the leases of an admitted request (policies with {@code max-in-flight}) and settles it (policies with
     * {@code settle}) when its response is done: written in full (a streamed body too), failed, or its connection closed
     * (the client gone, a timeout).
     */
    static void endWithResponse(Outcome o, RoutingContext rc) {
        if (o instanceof Outcome.Admitted a && a.endMatters()) {
            if (rc.response().ended() || rc.response().closed()) {
                a.end(failed(rc, !rc.response().ended()));
            } else {
                rc.addEndHandler(done -> a.end(failed(rc, done.failed())));
            }
        }
    }

    /** Whether a request failed: its response was not written in full (the connection closed), or is a 5xx. */
    static boolean failed(RoutingContext rc, boolean unfinished) {
        return unfinished || rc.response().getStatusCode() >= 500;
    }

    /** Answers a call that was not admitted in a REST filter ({@link #problem}); a refusal's body may be one made already. */
    static void abort(ProblemMappers problems, ResteasyReactiveContainerRequestContext request, Outcome o) {
        if (o instanceof Outcome.Refused r) {
            problems.refuse(request, r.failure());
        } else {
            problems.abort(request, problem(o));
        }
    }

    /** Answers a call that was not admitted outside the REST layer ({@link #problem}). */
    static void send(ProblemMappers problems, io.vertx.core.http.HttpServerResponse response, Outcome o) {
        if (o instanceof Outcome.Refused r) {
            problems.refuse(response, r.failure());
        } else {
            problems.send(response, problem(o));
        }
    }

    /** The answer to a call that was not admitted: 429, 400, 503 or 500. */
    static Problem problem(Outcome o) {
        if (o instanceof Outcome.Refused r) {
            return Problems.rateLimited(r.failure());
        }
        if (o instanceof Outcome.KeyMissing m) {
            return Problems.missingKey(m.failure().policy(), m.failure().getMessage());
        }
        if (o instanceof Outcome.StoreUnavailable) {
            return Problems.storeUnavailable();
        }
        if (o instanceof Outcome.Failed f) {
            return Problems.decisionFailed(f.policy());
        }
        if (o instanceof Outcome.Abandoned a) {
            return Problems.clientGone(a.decisions().get(0).policy().name());
        }
        throw new IllegalArgumentException("an admitted call has no problem");
    }
}
