package dev.slidegate.demo;

import jakarta.ws.rs.WebApplicationException;

import dev.slidegate.api.RateLimitExceededException;
import dev.slidegate.api.Usage;
import dev.slidegate.http.Problem;
import dev.slidegate.http.Problems;

/**
 * What the chat relay answers when its provider did not answer the call, and what the call used:
 * <ul>
 * <li>Slidegate refused the outgoing call (it would have waited longer than its policy's {@code max-wait}): that refusal,
 * a 429, as it is; the provider never saw the call, which used nothing.</li>
 * <li>The provider answered an error status: 502 with a sentence naming it; a call the provider refused used nothing.</li>
 * <li>No answer at all: 502 with a sentence, never a 500. A call whose connection could not be made used nothing; one
 * whose connection closed or whose answer never came may have been counted by the provider, and keeps its estimate (the
 * caller cannot drop the relay's connection to the provider, but nothing here is refunded on a guess).</li>
 * </ul>
 */
final class ProviderFailures {

    private ProviderFailures() {
    }

    /**
     * @param respond the response carrying a problem ({@code ProblemMappers::response})
     */
    static Throwable answer(Throwable failure, Usage usage,
            java.util.function.Function<Problem, jakarta.ws.rs.core.Response> respond) {
        if (failure instanceof RateLimitExceededException) {
            usage.report(0);
            return failure;
        }
        if (failure instanceof WebApplicationException e && e.getResponse() != null) {
            usage.report(0);
            return badGateway(respond, "The model's provider answered " + e.getResponse().getStatus() + ".");
        }
        if (neverConnected(failure)) {
            usage.report(0);
            return badGateway(respond, "The model's provider could not be reached.");
        }
        return badGateway(respond, "The model's provider did not answer: the connection closed, or its answer never came.");
    }

    /** Whether {@code failure} (or a cause of it) is a connection that could not be made: the call was never sent. */
    static boolean neverConnected(Throwable failure) {
        int depth = 0; // (a chain of causes that loops ends here too)
        for (Throwable t = failure; t != null && depth++ < 16; t = t.getCause()) {
            if (t instanceof java.net.ConnectException) {
                return true;
            }
        }
        return false;
    }

    private static WebApplicationException badGateway(java.util.function.Function<Problem, jakarta.ws.rs.core.Response> respond,
            String detail) {
        return new WebApplicationException(respond.apply(Problems.of(502, "Bad Gateway", "provider-failed", detail)));
    }
}
