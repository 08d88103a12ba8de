package dev.slidegate.http;

import java.util.Arrays;

import com.fasterxml.jackson.databind.ObjectMapper;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The problem bodies Slidegate writes by hand are, byte for byte, what Jackson's object
 * mapper writes for the record, over any text in any member (quotes, backslashes, control characters, characters
 * outside the BMP) and any member left out.
 */
class ProblemJsonProperties {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final ProblemMappers PROBLEMS = new ProblemMappers();

    /** Any text, with what JSON must escape over-represented; sometimes none at all. */
    @Provide
    Arbitrary<String> texts() {
        return Arbitraries.oneOf(Arbitraries.strings().ofMaxLength(60),
                Arbitraries.strings().withChars("\"\\/\b\f\n\r\t\u0000\u001f\u007f\u2028\u00e9\u4e2d\ud83d\ude00'<>&aZ09 ")
                        .ofMaxLength(40))
                .injectNull(0.2);
    }

    @Property(tries = 3000)
    void theStreamedBodyIsWhatTheObjectMapperWrites(@ForAll("texts") String type, @ForAll("texts") String title,
            @ForAll int status, @ForAll("texts") String detail, @ForAll("texts") String policy, @ForAll("texts") String limit,
            @ForAll("retries") Long retryAfter) throws Exception {
        Problem problem = new Problem(type, title, status, detail, policy, limit, retryAfter);
        byte[] expected = MAPPER.writeValueAsBytes(problem);
        byte[] written = PROBLEMS.json(problem);
        if (!Arrays.equals(expected, written)) {
            throw new AssertionError(new String(written, java.nio.charset.StandardCharsets.UTF_8) + " instead of "
                    + new String(expected, java.nio.charset.StandardCharsets.UTF_8));
        }
    }

    @net.jqwik.api.Example
    void aServicesNamingStrategyDoesNotRenameTheMembers() {
        // quarkus.jackson.property-naming-strategy=SNAKE_CASE made the object mapper write retry_after
        ObjectMapper snake = new ObjectMapper()
                .setPropertyNamingStrategy(com.fasterxml.jackson.databind.PropertyNamingStrategies.SNAKE_CASE);
        String body = new String(new ProblemMappers().json(Problems.storeUnavailable()),
                java.nio.charset.StandardCharsets.UTF_8);
        if (!body.contains("\"retryAfter\":1") || body.contains("retry_after")) {
            throw new AssertionError(body);
        }
    }

    @Provide
    Arbitrary<Long> retries() {
        return Arbitraries.longs().injectNull(0.3);
    }
}
