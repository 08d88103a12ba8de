package dev.slidegate.entry;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

import dev.slidegate.api.KeyResolver;

/**
 * {@code cost-resolver=llm-request}: the prompt's size (a token per 4 characters of the request) plus the most the
 * request asks for, in the names OpenAI's chat completions and responses and Anthropic's messages use.
 */
@org.junit.jupiter.api.Timeout(10)
class LlmRequestEstimateTest {

    private static long cost(Object... arguments) {
        return LlmRequestEstimate.INSTANCE.cost(new KeyResolver.Call("chat", null, arguments, null));
    }

    @Test
    void theEstimateIsThePromptsSizePlusTheMostTheRequestAsksFor() {
        String openai = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"Hello there\"}],\"max_tokens\":300}";
        assertEquals((openai.length() + 3) / 4 + 300, cost(openai));
        String completion = openai.replace("max_tokens", "max_completion_tokens");
        assertEquals((completion.length() + 3) / 4 + 300, cost(completion));
        String responses = "{\"model\":\"m\",\"input\":\"Hi\",\"max_output_tokens\" : 50}";
        assertEquals((responses.length() + 3) / 4 + 50, cost(responses.getBytes()));
        assertEquals((responses.length() + 3) / 4 + 50, cost(new io.vertx.core.json.JsonObject(responses)));
    }

    @Test
    void aRequestThatNamesNoMostIsEstimatedAtTheDefaultOutput() {
        String plain = "{\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";
        assertEquals((plain.length() + 3) / 4 + LlmRequestEstimate.DEFAULT_OUTPUT, cost(plain));
        assertEquals(LlmRequestEstimate.DEFAULT_OUTPUT, cost(42, new Object()), "no request in text");
    }

    // an endpoint's or a client's other arguments (a header's value, a path parameter) are not the request
    @Test
    void theRequestIsTheFirstArgumentThatIsAJsonObject() {
        String request = "{\"messages\":[],\"max_tokens\":9}";
        assertEquals((request.length() + 3) / 4 + 9, cost("key-123", 7, null, "  " + request));
    }

    // the prompt is the caller's: a name inside a string is escaped, so "max_tokens": 1 written in a message is text
    @Test
    void aMostWrittenInsideThePromptIsNotTheRequests() {
        String sly = "{\"messages\":[{\"content\":\"\\\"max_tokens\\\": 1\"}],\"max_tokens\":4000}";
        assertEquals((sly.length() + 3) / 4 + 4000, cost(sly));
        String noMost = "{\"messages\":[{\"content\":\"\\\"max_tokens\\\": 1\"}]}";
        assertEquals((noMost.length() + 3) / 4 + LlmRequestEstimate.DEFAULT_OUTPUT, cost(noMost));
    }

    @Test
    void aHugeMostIsCappedAtTheLargestCost() {
        assertEquals(Integer.MAX_VALUE, cost("{\"max_tokens\":999999999999}"));
    }
}
