package dev.slidegate.http;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.UUID;

import org.eclipse.microprofile.rest.client.inject.RestClient;
import org.junit.jupiter.api.Test;

import dev.slidegate.client.LlmClient;
import dev.slidegate.client.LlmStandIn;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * Policies that read usage from the answer (issue 60), against a stand-in of OpenAI and of Anthropic, whole and streamed:
 * calls are admitted against 500 tokens each and settled with the tokens the answer reported, for a REST client (inside a
 * request and outside one), for the endpoint that proxies it (whole, collected, relayed event by event), and for an
 * endpoint that serves such answers itself; an answer that reports nothing, or lies, keeps the estimate. Judged by the
 * windows the admin shows, which the settlements change.
 */
// a regression fails in seconds, never hangs the build
@org.junit.jupiter.api.Timeout(value = 60, unit = java.util.concurrent.TimeUnit.SECONDS)
@QuarkusTest
@TestProfile(dev.slidegate.http.SharedProfiles.Demo.class) // the demo as it ships (and Envoy's rate-limit service)
class AnswerUsagesTest {

    @RestClient
    LlmClient client;

    private static String newKey() {
        return "k-" + UUID.randomUUID();
    }

    private static String get(String apiKey, String path, int in, int out) {
        return given().header("X-Api-Key", apiKey).queryParam("in", in).queryParam("out", out).get(path).then()
                .statusCode(200).extract().asString();
    }

    @Test
    void theProxyAndItsClientAreSettledWithTheTokensTheAnswersReported() {
        String apiKey = newKey();
        get(apiKey, "/test/llm-proxy/openai", 12, 30);
        CountWhenTest.awaitUsed("llm-proxy", "hdr:" + apiKey, 42);
        get(apiKey, "/test/llm-proxy/anthropic", 10, 20);
        CountWhenTest.awaitUsed("llm-proxy", "hdr:" + apiKey, 72);
        given().header("X-Api-Key", apiKey).get("/test/llm-proxy/none").then().statusCode(200);
        CountWhenTest.awaitUsed("llm-proxy", "hdr:" + apiKey, 572); // no usage reported: the estimate stands
    }

    // a REST client's stream of server-sent events is read as its items pass: the proxy that collects it is settled
    // with what the last chunk (OpenAI) or message_start and message_delta (Anthropic) said, and the stream is whole
    @Test
    void aStreamedAnswerIsReadAsItPasses() {
        String apiKey = newKey();
        String body = get(apiKey, "/test/llm-proxy/openai/stream", 8, 2);
        assertEquals(LlmStandIn.openaiChunks(8, 2), body.lines().toList());
        CountWhenTest.awaitUsed("llm-proxy", "hdr:" + apiKey, 10);
        body = get(apiKey, "/test/llm-proxy/anthropic/stream", 25, 7);
        assertEquals(LlmStandIn.anthropicEvents(25, 7), body.lines().toList());
        CountWhenTest.awaitUsed("llm-proxy", "hdr:" + apiKey, 42);
    }

    @Test
    void aRelayedStreamSettlesTheProxyWithWhatTheProviderSaid() {
        String apiKey = newKey();
        String body = get(apiKey, "/test/llm-proxy/anthropic/relay", 31, 9);
        assertEquals(LlmStandIn.anthropicEvents(31, 9).size(), body.lines().filter(l -> l.startsWith("data:")).count(), body);
        CountWhenTest.awaitUsed("llm-proxy", "hdr:" + apiKey, 40);
    }

    // a stream whose usage chunk never comes keeps the estimate; one cut in the middle of message_delta's output count is
    // settled with what it said whole before the cut (the input and message_start's first output token), never less
    @Test
    void aStreamWithoutUsageKeepsItsEstimateAndACutOneWhatItSaid() {
        String apiKey = newKey();
        given().header("X-Api-Key", apiKey).get("/test/llm-proxy/none/relay").then().statusCode(200);
        CountWhenTest.awaitUsed("llm-proxy", "hdr:" + apiKey, 500);
        // the endpoint's first call and a later one (decided before dispatch: its stream's end, not its response's, which a
        // cut stream never ends, settles it)
        for (String cut : java.util.List.of(newKey(), newKey())) {
            try {
                given().header("X-Api-Key", cut).queryParam("in", 60).queryParam("out", 99)
                        .get("/test/llm-served/anthropic-cut").asString();
            } catch (Exception cutShort) { // the answer is cut where the model's stream was
            }
            CountWhenTest.awaitUsed("llm-served", "hdr:" + cut, 61);
        }
    }

    @Test
    void anEndpointThatServesAnswersIsSettledWithWhatTheyReport() {
        String apiKey = newKey();
        get(apiKey, "/test/llm-served/openai", 3, 4);
        CountWhenTest.awaitUsed("llm-served", "hdr:" + apiKey, 7);
        get(apiKey, "/test/llm-served/anthropic", 5, 6); // a Uni of a Response whose entity is the answer's bytes
        CountWhenTest.awaitUsed("llm-served", "hdr:" + apiKey, 18);
        get(apiKey, "/test/llm-served/openai-stream", 20, 1); // a Multi of events
        CountWhenTest.awaitUsed("llm-served", "hdr:" + apiKey, 39);
        String raw = get(apiKey, "/test/llm-served/anthropic-raw", 100, 11); // the raw stream, in pieces of 7 bytes
        assertEquals(LlmStandIn.anthropicEvents(100, 11).size(), raw.lines().filter(l -> l.startsWith("data: ")).count());
        CountWhenTest.awaitUsed("llm-served", "hdr:" + apiKey, 150);
        String liar = newKey();
        given().header("X-Api-Key", liar).get("/test/llm-served/lying").then().statusCode(200);
        CountWhenTest.awaitUsed("llm-served", "hdr:" + liar, 500); // a negative and a fractional count are none
    }

    // input and output tokens limited apart in one policy: each part is its own policy (<name>#input, #output), decided
    // with the whole in one step and settled with its part of what the answer said; the output's limit refuses the
    // third call, which none of the three is charged
    @Test
    void inputAndOutputTokensAreLimitedApartInOnePolicy() {
        String apiKey = newKey();
        given().header("X-Api-Key", apiKey).queryParam("in", 2).queryParam("out", 400).get("/test/llm-served/parts").then()
                .statusCode(200)
                .header("RateLimit-Policy", org.hamcrest.Matchers.containsString("\"llm-parts#output-1m\";q=1000;"))
                .header("RateLimit-Policy", org.hamcrest.Matchers.containsString("qu=\"slidegate-output-tokens\""))
                .header("RateLimit-Policy", org.hamcrest.Matchers.containsString("\"llm-parts#input-1m\";q=100000;"));
        CountWhenTest.awaitUsed("llm-parts", "hdr:" + apiKey, 402);
        CountWhenTest.awaitUsed("llm-parts#input", "hdr:" + apiKey, 2);
        CountWhenTest.awaitUsed("llm-parts#output", "hdr:" + apiKey, 400);
        get(apiKey, "/test/llm-served/parts", 2, 400); // 400 + an estimate of 500 fit in 1 000
        CountWhenTest.awaitUsed("llm-parts#output", "hdr:" + apiKey, 800);
        given().header("X-Api-Key", apiKey).queryParam("in", 2).queryParam("out", 400).get("/test/llm-served/parts").then()
                .statusCode(429).body("policy", org.hamcrest.Matchers.equalTo("llm-parts#output"));
        CountWhenTest.awaitUsed("llm-parts", "hdr:" + apiKey, 804);
        CountWhenTest.awaitUsed("llm-parts#input", "hdr:" + apiKey, 4);
    }

    // a request that calls the provider twice (a tool loop) is charged both answers; an endpoint that reads its own
    // answer and relays what a REST client read is charged it once
    @Test
    void aRequestIsChargedEveryAnswerItsCallsGotAndARelayedOneOnce() {
        String apiKey = newKey();
        get(apiKey, "/test/llm-proxy/openai/twice", 5, 6);
        CountWhenTest.awaitUsed("llm-proxy", "hdr:" + apiKey, 22);
        String relaying = newKey();
        get(relaying, "/test/llm-served/relayed", 7, 8);
        CountWhenTest.awaitUsed("llm-served", "hdr:" + relaying, 15);
    }

    // a service built on an LLM library: the library's own REST client, which no policy paces, is read for a request
    // whose policy reads answers, and the endpoint answers the model's text alone
    @Test
    void aLibrarysOwnClientIsReadForARequestWhosePolicyReadsAnswers() {
        String apiKey = newKey();
        assertEquals("Hello", get(apiKey, "/test/llm-served/library", 9, 13));
        CountWhenTest.awaitUsed("llm-served", "hdr:" + apiKey, 22);
        String streaming = newKey();
        assertEquals("Hello", get(streaming, "/test/llm-served/library-stream", 4, 3));
        CountWhenTest.awaitUsed("llm-served", "hdr:" + streaming, 7);
    }

    // the first call of a streamed endpoint is decided before its stream's headers are written: it carries its
    // RateLimit fields (decided inside the stream, it went out without them)
    @Test
    void theFirstCallOfAStreamedEndpointCarriesItsRateLimitFields() {
        given().header("X-Api-Key", newKey()).queryParam("in", 1).queryParam("out", 1).get("/test/llm-served/first-stream")
                .then().statusCode(200).header("RateLimit", org.hamcrest.Matchers.containsString("\"llm-served-1m\";r="));
    }

    // a stream the interceptor decides (keyed by an argument): admitted, its answer carries its RateLimit fields;
    // refused, it is a 429 with its problem, not a 200 cut short
    @Test
    void aStreamDecidedByTheInterceptorAnswersItsDecision() {
        String who = newKey();
        String events = given().get("/test/llm-served/keyed-stream/" + who).then().statusCode(200)
                .header("RateLimit", org.hamcrest.Matchers.containsString("\"keyed-stream-1m\";r=0;")).extract().asString();
        assertEquals(LlmStandIn.openaiChunks(1, 1).size(), events.lines().filter(l -> l.startsWith("data:")).count());
        given().get("/test/llm-served/keyed-stream/" + who).then().statusCode(429)
                .contentType(org.hamcrest.Matchers.startsWith("application/problem+json"))
                .header("Retry-After", org.hamcrest.Matchers.notNullValue());
    }

    // a REST client called outside any request (a scheduled job, a consumer of messages) settles its own call
    @Test
    void aClientCalledOutsideARequestIsSettledWithWhatTheAnswerSaid() {
        assertEquals(LlmStandIn.openai(5, 6), client.completeOffline("openai", 5, 6));
        CountWhenTest.awaitUsed("llm-offline", "client:llm-standin", 11);
    }
}
