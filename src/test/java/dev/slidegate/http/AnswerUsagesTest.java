package dev.slidegate.http;

import static io.restassured.RestAssured.given;

import java.util.UUID;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;

/**
 * A REST client whose policy reads usage from the answer (issue 60): calls to a stand-in of OpenAI and of Anthropic are
 * admitted against 500 tokens each and settled with the tokens the answer reported, for the endpoint that proxies them
 * too; an answer that reports nothing keeps the estimate. Judged by the windows the admin shows, which the settlements
 * change.
 */
// a regression fails in seconds, never hangs the build
@org.junit.jupiter.api.Timeout(value = 60, unit = java.util.concurrent.TimeUnit.SECONDS)
@QuarkusTest
class AnswerUsagesTest {

    @Test
    void theProxyAndItsClientAreSettledWithTheTokensTheAnswersReported() {
        String apiKey = "k-" + UUID.randomUUID();
        given().header("X-Api-Key", apiKey).queryParam("in", 12).queryParam("out", 30).get("/test/llm-proxy/openai").then()
                .statusCode(200);
        CountWhenTest.awaitUsed("llm-proxy", "hdr:" + apiKey, 42);
        given().header("X-Api-Key", apiKey).queryParam("in", 10).queryParam("out", 20).get("/test/llm-proxy/anthropic")
                .then().statusCode(200);
        CountWhenTest.awaitUsed("llm-proxy", "hdr:" + apiKey, 72);
        given().header("X-Api-Key", apiKey).get("/test/llm-proxy/none").then().statusCode(200);
        CountWhenTest.awaitUsed("llm-proxy", "hdr:" + apiKey, 572); // no usage reported: the estimate stands
    }

    // a REST client's stream of server-sent events is not read yet (its events are read without the call's
    // properties): it passes through whole, and the call keeps its estimate
    @Test
    void aStreamedAnswerPassesThroughWholeAndKeepsItsEstimate() {
        String apiKey = "k-" + UUID.randomUUID();
        String body = given().header("X-Api-Key", apiKey).queryParam("in", 8).queryParam("out", 2)
                .get("/test/llm-proxy/openai/stream").then().statusCode(200).extract().asString();
        org.junit.jupiter.api.Assertions.assertEquals(3, body.lines().count(), body);
        CountWhenTest.awaitUsed("llm-proxy", "hdr:" + apiKey, 500);
    }
}
