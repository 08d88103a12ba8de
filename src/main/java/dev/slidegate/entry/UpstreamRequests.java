package dev.slidegate.entry;

import jakarta.ws.rs.client.ClientRequestContext;
import jakarta.ws.rs.client.ClientRequestFilter;
import jakarta.ws.rs.ext.Provider;

/**
 * Hands the arguments of an outgoing call that {@code @RateLimited} paces from the interceptor to the request's
 * properties, where {@link UpstreamResponses} finds them with the response: the key a response teaches about is the
 * one its call was decided under; and the usage a call's answer is added to, where {@link AnswerUsages} adds what the
 * answer says: a paced call's whose policy reads it, or any call made for a request whose policies read answers (a
 * library's client, such as an LLM framework's). For every other call of every REST client: one thread-local read.
 */
@Provider
public class UpstreamRequests implements ClientRequestFilter {

    private final io.quarkus.vertx.http.runtime.CurrentVertxRequest current;

    UpstreamRequests(io.quarkus.vertx.http.runtime.CurrentVertxRequest current) {
        this.current = current;
    }

    @Override
    public void filter(ClientRequestContext request) {
        RestClients.Calling calling = RestClients.CALLING.get();
        if (calling != null) {
            request.setProperty(RestClients.ARGUMENTS, calling.args());
        }
        if (calling != null && calling.usage() != null) {
            request.setProperty(RestClients.USAGE, calling.usage()); // a paced call whose own policy reads its answer
        } else if (RequestUsage.anyReadsAnswers && readingRequest() instanceof RequestUsage usage) {
            // a call no policy of its own settles (a library's client, or one paced by what it costs when it is sent),
            // made for a request that reads answers
            request.setProperty(RestClients.USAGE, usage);
        }
    }

    /** The usage of the request being answered on this thread when its policies read answers, else {@code null}. */
    private Object readingRequest() {
        io.quarkus.arc.ArcContainer arc = io.quarkus.arc.Arc.container();
        if (arc == null || !arc.requestContext().isActive()) {
            return null;
        }
        io.vertx.ext.web.RoutingContext rc = current.getCurrent();
        return rc != null && rc.get(Exchanges.USAGE) instanceof RequestUsage u && u.readsAnswers ? u : null;
    }
}
