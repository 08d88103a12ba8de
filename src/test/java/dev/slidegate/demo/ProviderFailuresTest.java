package dev.slidegate.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import jakarta.ws.rs.ProcessingException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;

import org.junit.jupiter.api.Test;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Limit;
import dev.slidegate.api.Policy;
import dev.slidegate.api.RateLimitExceededException;
import dev.slidegate.api.Strategy;
import dev.slidegate.api.Usage;
import dev.slidegate.http.Problem;

/**
 * The chat relay's answer when its provider did not answer: never a 500, and a call is refunded only when the provider
 * cannot have counted it (refused before it was sent, refused by the provider, or no connection made). A connection that
 * closed under the call (once seen in UpstreamFleetIT: four calls failed with Vert.x' "Connection was closed", and the
 * relay answered 500) is a 502 that keeps the call's estimate.
 */
class ProviderFailuresTest {

    /** The response carrying a problem, the problem itself its entity. */
    private final java.util.function.Function<Problem, Response> problems = p -> Response.status(p.status()).entity(p).build();

    @Test
    void aConnectionThatClosedUnderTheCallIsA502AndTheCallKeepsItsEstimate() {
        Usage usage = new Usage();
        Throwable answer = ProviderFailures.answer(
                new ProcessingException(new io.vertx.core.http.HttpClosedException("Connection was closed")), usage, problems);
        assertBadGateway(answer, "did not answer");
        assertEquals(-1, usage.reported(), "nothing reported: the call keeps its estimate");
    }

    @Test
    void aProviderThatCouldNotBeReachedIsA502AndTheCallUsedNothing() {
        Usage usage = new Usage();
        Throwable answer = ProviderFailures.answer(
                new ProcessingException(new java.net.ConnectException("Connection refused")), usage, problems);
        assertBadGateway(answer, "could not be reached");
        assertEquals(0, usage.reported());
    }

    @Test
    void anErrorTheProviderAnsweredIsA502NamingItAndTheCallUsedNothing() {
        Usage usage = new Usage();
        Throwable answer = ProviderFailures.answer(new WebApplicationException(Response.status(503).build()), usage,
                problems);
        assertBadGateway(answer, "answered 503");
        assertEquals(0, usage.reported());
    }

    @Test
    void slidegatesOwnRefusalOfTheOutgoingCallIsPassedOnAndTheCallUsedNothing() {
        Usage usage = new Usage();
        RateLimitExceededException refused = new RateLimitExceededException(new Decision(
                new Policy("model", List.of(Limit.parse("12/1s")), Strategy.SLIDING_LOG, "global", false, false), false, 0,
                500_000, 0, List.of()));
        assertSame(refused, ProviderFailures.answer(refused, usage, problems));
        assertEquals(0, usage.reported());
    }

    private static void assertBadGateway(Throwable answer, String detail) {
        Response r = ((WebApplicationException) answer).getResponse();
        assertEquals(502, r.getStatus());
        Problem problem = (Problem) r.getEntity();
        assertTrue(problem.detail().contains(detail), problem.toString());
    }
}
