package dev.slidegate.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import java.util.Random;

import org.junit.jupiter.api.Test;

import dev.slidegate.core.AnswerUsage.Framing;
import dev.slidegate.core.AnswerUsage.Tokens;

/**
 * The usage LLM providers' answers report, read as the bytes pass (issue 60): the providers' published formats, whole and
 * streamed, split anywhere; and what a lying or broken answer says, read so that it never lifts a budget.
 */
// a regression fails in seconds, never hangs the build
@org.junit.jupiter.api.Timeout(value = 60, unit = java.util.concurrent.TimeUnit.SECONDS)
class AnswerUsageTest {

    // OpenAI chat completions, whole: a "usage" inside a string is text, the details object is not the usage
    static final String OPENAI_CHAT = """
            {"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant",
            "content":"say \\"usage\\": {\\"total_tokens\\": 1}"},"finish_reason":"stop"}],
            "usage":{"prompt_tokens":12,"completion_tokens":30,"total_tokens":42,
            "prompt_tokens_details":{"cached_tokens":5},"completion_tokens_details":{"reasoning_tokens":0}}}""";

    // OpenAI Responses, whole
    static final String OPENAI_RESPONSES = """
            {"id":"resp_1","object":"response","output":[{"type":"message","content":[{"type":"output_text","text":"hi"}]}],
            "usage":{"input_tokens":7,"input_tokens_details":{"cached_tokens":3},"output_tokens":9,
            "output_tokens_details":{"reasoning_tokens":2},"total_tokens":16}}""";

    // Anthropic Messages, whole: cached input counts as input
    static final String ANTHROPIC = """
            {"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"Hello"}],
            "stop_reason":"end_turn","usage":{"input_tokens":10,"cache_creation_input_tokens":4,
            "cache_read_input_tokens":6,"output_tokens":20}}""";

    // OpenAI chat completions streamed with stream_options.include_usage: usage null until the last chunk
    static final String OPENAI_STREAM = "data: {\"id\":\"c\",\"choices\":[{\"delta\":{\"content\":\"Hel\"}}],\"usage\":null}\n\n"
            + "data: {\"id\":\"c\",\"choices\":[{\"delta\":{\"content\":\"lo\"}}],\"usage\":null}\n\n"
            + "data: {\"id\":\"c\",\"choices\":[],\"usage\":{\"prompt_tokens\":8,\"completion_tokens\":2,\"total_tokens\":10}}\n\n"
            + "data: [DONE]\n\n";

    // OpenAI Responses streamed: the usage comes with response.completed
    static final String OPENAI_RESPONSES_STREAM = "event: response.created\n"
            + "data: {\"type\":\"response.created\",\"response\":{\"id\":\"r\",\"usage\":null}}\n\n"
            + "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"Hi\"}\n\n"
            + "event: response.completed\n"
            + "data: {\"type\":\"response.completed\",\"response\":{\"id\":\"r\",\"usage\":{\"input_tokens\":5,"
            + "\"output_tokens\":6,\"total_tokens\":11}}}\n\n";

    // Anthropic streamed: input in message_start, the running output total in message_delta
    static final String ANTHROPIC_STREAM = "event: message_start\n"
            + "data: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"content\":[],"
            + "\"usage\":{\"input_tokens\":25,\"output_tokens\":1}}}\n\n"
            + "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
            + "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
            + ": a comment line\n"
            + "event: ping\ndata: {\"type\": \"ping\"}\n\n"
            + "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
            + "\"delta\":{\"type\":\"text_delta\",\"text\":\"Hello\"}}\n\n"
            + "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},"
            + "\"usage\":{\"output_tokens\":15}}\n\n"
            + "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";

    private static Tokens read(Framing framing, String answer) {
        AnswerUsage u = AnswerUsage.of(framing);
        u.feed(answer.getBytes(StandardCharsets.UTF_8));
        return u.tokens();
    }

    /** The answer fed in random pieces (one byte to a few hundred), as a network delivers it. */
    private static Tokens readInPieces(Framing framing, String answer, long seed) {
        byte[] bytes = answer.getBytes(StandardCharsets.UTF_8);
        Random random = new Random(seed);
        AnswerUsage u = AnswerUsage.of(framing);
        int at = 0;
        while (at < bytes.length) {
            int n = Math.min(bytes.length - at, 1 + random.nextInt(random.nextBoolean() ? 3 : 300));
            u.feed(bytes, at, n);
            at += n;
        }
        return u.tokens();
    }

    @Test
    void theProvidersWholeAnswersAreRead() {
        assertEquals(new Tokens(12, 30, 42), read(Framing.JSON, OPENAI_CHAT));
        assertEquals(42, read(Framing.JSON, OPENAI_CHAT).charged());
        assertEquals(new Tokens(7, 9, 16), read(Framing.JSON, OPENAI_RESPONSES));
        assertEquals(new Tokens(20, 20, -1), read(Framing.JSON, ANTHROPIC), "cached input counts as input");
        assertEquals(40, read(Framing.JSON, ANTHROPIC).charged());
    }

    @Test
    void theProvidersStreamsAreRead() {
        assertEquals(new Tokens(8, 2, 10), read(Framing.SSE, OPENAI_STREAM));
        assertEquals(new Tokens(5, 6, 11), read(Framing.SSE, OPENAI_RESPONSES_STREAM));
        assertEquals(new Tokens(25, 15, -1), read(Framing.SSE, ANTHROPIC_STREAM));
        assertEquals(40, read(Framing.SSE, ANTHROPIC_STREAM).charged());
        // CRLF line ends, and a data field split over two lines
        assertEquals(new Tokens(8, 2, 10), read(Framing.SSE, OPENAI_STREAM.replace("\n", "\r\n")));
        assertEquals(new Tokens(3, 4, -1),
                read(Framing.SSE, "data: {\"usage\":\ndata: {\"input_tokens\":3,\"output_tokens\":4}}\n\n"));
    }

    // a stream's events read one document at a time, as a REST client hands over each event's data (nextDocument):
    // the same as the whole stream; a document cut short counts nothing of its own and does not spoil the next
    @Test
    void eventsReadAsDocumentsReadAsTheirStream() {
        for (String stream : new String[] { OPENAI_STREAM, OPENAI_RESPONSES_STREAM, ANTHROPIC_STREAM }) {
            AnswerUsage answer = AnswerUsage.of(Framing.JSON);
            for (String event : stream.split("\n\n")) {
                answer.nextDocument();
                event.lines().filter(l -> l.startsWith("data: ")).forEach(
                        l -> answer.feed(l.substring(6).getBytes(StandardCharsets.UTF_8)));
            }
            assertEquals(read(Framing.SSE, stream), answer.tokens(), stream);
        }
        AnswerUsage answer = AnswerUsage.of(Framing.JSON);
        answer.feed("{\"usage\":{\"input_tokens\":3,\"output_tok".getBytes(StandardCharsets.UTF_8));
        answer.nextDocument();
        answer.feed("{\"usage\":{\"output_tokens\":4}}".getBytes(StandardCharsets.UTF_8));
        assertEquals(new Tokens(-1, 4, -1), answer.tokens());
    }

    // however the network splits an answer, it reads the same
    @Test
    void anAnswerSplitAnywhereReadsTheSame() {
        for (long seed = 0; seed < 200; seed++) {
            assertEquals(read(Framing.JSON, OPENAI_CHAT), readInPieces(Framing.JSON, OPENAI_CHAT, seed), "seed " + seed);
            assertEquals(read(Framing.JSON, ANTHROPIC), readInPieces(Framing.JSON, ANTHROPIC, seed), "seed " + seed);
            assertEquals(read(Framing.SSE, OPENAI_STREAM), readInPieces(Framing.SSE, OPENAI_STREAM, seed), "seed " + seed);
            assertEquals(read(Framing.SSE, ANTHROPIC_STREAM), readInPieces(Framing.SSE, ANTHROPIC_STREAM, seed),
                    "seed " + seed);
            assertEquals(read(Framing.SSE, OPENAI_RESPONSES_STREAM),
                    readInPieces(Framing.SSE, OPENAI_RESPONSES_STREAM, seed), "seed " + seed);
        }
    }

    // lies and breakage: never a count below what was reported, never an exception, never a negative charge
    @Test
    void aLyingOrBrokenAnswerNeverLiftsABudget() {
        assertNull(read(Framing.JSON, "{\"choices\":[]}"), "no usage: nothing reported (the estimate stands)");
        assertNull(read(Framing.JSON, "{\"usage\":{\"prompt_tokens\":-5,\"completion_tokens\":-7}}"), "negative: no count");
        assertNull(read(Framing.JSON, "{\"usage\":{\"prompt_tokens\":2.5,\"completion_tokens\":1e3}}"),
                "fractional or exponent: no count");
        assertNull(read(Framing.JSON, "{\"usage\":{\"prompt_tokens\":\"900\",\"completion_tokens\":null}}"), "not numbers");
        assertEquals(DecisionStore.MAX_SETTLED,
                read(Framing.JSON, "{\"usage\":{\"completion_tokens\":99999999999999999999999999999999}}").charged(),
                "huge: the most a call is settled at");
        assertEquals(30, read(Framing.JSON, "{\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":20,\"total_tokens\":3}}")
                .charged(), "a total below its parts: the parts");
        assertEquals(new Tokens(10, 20, -1), read(Framing.JSON,
                "{\"usage\":{\"input_tokens\":10,\"output_tokens\":20,\"output_tokens\":1,\"input_tokens\":0}}"),
                "a part said twice: the most said");
        assertEquals(new Tokens(25, 15, -1), read(Framing.SSE, ANTHROPIC_STREAM
                + "data: {\"type\":\"message_delta\",\"usage\":{\"output_tokens\":0,\"input_tokens\":0}}\n\n"),
                "a later, smaller report: the most reported");
        // a stream cut short: what had passed (message_start's input, its output so far)
        String cut = ANTHROPIC_STREAM.substring(0, ANTHROPIC_STREAM.indexOf("event: message_delta") + 60);
        assertEquals(new Tokens(25, 1, -1), read(Framing.SSE, cut));
        // a usage chunk that never comes: nothing reported
        assertNull(read(Framing.SSE, OPENAI_STREAM.substring(0, OPENAI_STREAM.indexOf("data: {\"id\":\"c\",\"choices\":[],"))));
        // usage anywhere but where the providers put it is not read (a proxy's own wrapper, a tool's argument)
        assertNull(read(Framing.JSON, "{\"data\":{\"result\":{\"usage\":{\"total_tokens\":1}}}}"));
        // garbage, nesting far beyond what is tracked, a huge string: read through, nothing buffered, nothing thrown
        assertNull(read(Framing.JSON, "]]]}}}:::\"\\"));
        assertEquals(new Tokens(1, 2, -1), read(Framing.JSON, "{\"a\":" + "[".repeat(100_000) + "]".repeat(100_000)
                + ",\"usage\":{\"input_tokens\":1,\"output_tokens\":2}}"));
        assertEquals(new Tokens(3, 4, -1), read(Framing.JSON, "{\"content\":\"" + "x".repeat(5_000_000)
                + "\",\"usage\":{\"input_tokens\":3,\"output_tokens\":4}}"));
        assertNull(read(Framing.SSE, "data: " + "{".repeat(1000) + "\n\n" + "x".repeat(10_000) + "\n\n"));
        // a broken event does not spoil the next one
        assertEquals(new Tokens(8, 2, 10), read(Framing.SSE, "data: {\"usage\":{]]]\n\n" + OPENAI_STREAM));
    }
}
