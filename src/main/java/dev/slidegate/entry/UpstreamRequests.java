package dev.slidegate.entry;

import jakarta.ws.rs.client.ClientRequestContext;
import jakarta.ws.rs.client.ClientRequestFilter;
import jakarta.ws.rs.ext.Provider;

/**
 * Hands the arguments of an outgoing call that {@code @RateLimited} paces from the interceptor to the request's
 * properties, where {@link UpstreamResponses} finds them with the response: the key a response teaches about is the
 * one its call was decided under; and the usage a settled call reports to, where {@link AnswerUsages} reports what its
 * answer says. For every other call of every REST client: one thread-local read.
 */
@Provider
public class UpstreamRequests implements ClientRequestFilter {

    @Override
    public void filter(ClientRequestContext request) {
        RestClients.Calling calling = RestClients.CALLING.get();
        if (calling != null) {
            request.setProperty(RestClients.ARGUMENTS, calling.args());
            if (calling.usage() != null) {
                request.setProperty(RestClients.USAGE, calling.usage());
            }
        }
    }
}
