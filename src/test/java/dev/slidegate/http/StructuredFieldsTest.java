package dev.slidegate.http;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.slidegate.testing.Tools;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;

/**
 * Every kind of answer's RateLimit fields read by a parser that is not Slidegate's (issue 58): the structured-headers
 * library for JavaScript (RFC 9651), run by Node, checks each value is a structured list of string items with the
 * parameters draft-ietf-httpapi-ratelimit-headers-11 defines (integers where it says so, a registered or
 * vendor-prefixed unit), and a refusal's problem is the draft's {@code quota-exceeded} naming the quota policy the
 * fields name. The library is installed from the npm registry into {@code target/}; without Node or the registry the
 * test says so and skips (under CI it fails).
 */
@QuarkusTest
@TestProfile(dev.slidegate.http.SharedProfiles.Demo.class) // the demo as it ships (and Envoy's rate-limit service)
class StructuredFieldsTest {

    private static final String LIBRARY = "structured-headers@2.1.0";

    @Test
    void everyAnswersFieldsAreWhatTheDraftDefinesToAnIndependentParser() throws Exception {
        String key = "sfv-" + UUID.randomUUID();
        List<Response> answers = new ArrayList<>();
        answers.add(given().get("/api/products")); // three windows
        answers.add(given().header("X-Api-Key", key).get("/api/reports")); // a fixed window
        answers.add(given().header("X-Api-Key", "demo-pro-key").get("/api/reports")); // a plan's
        answers.add(given().header("X-Api-Key", key).queryParam("prompt", "hi").queryParam("max-tokens", 3)
                .get("/api/completions/whole")); // a unit of the service's own, and a calendar month
        answers.add(given().header("X-Api-Key", key).queryParam("seconds", "0.1").get("/api/reports/archive")); // slots
        Response mine = given().header("X-Api-Key", key).get("/test/keys/partitioned"); // the caller's partition (pk)
        Response mineAgain = given().header("X-Api-Key", key).get("/test/keys/partitioned");
        Response other = given().header("X-Api-Key", key + "-other").get("/test/keys/partitioned");
        answers.addAll(List.of(mine, mineAgain, other));
        Response refused = null;
        for (int i = 0; i < 101 && refused == null; i++) { // 100/1h
            Response r = given().header("X-Api-Key", key).get("/api/reports");
            if (r.statusCode() == 429) {
                refused = r;
            }
        }
        assertTrue(refused != null, "the reports policy refuses its 101st call");
        answers.add(refused);

        List<Map<String, String>> fields = new ArrayList<>();
        for (Response a : answers) {
            assertTrue(a.statusCode() == 200 || a.statusCode() == 429, a.statusLine() + " " + a.asString());
            for (String name : List.of(RateLimitHeaders.POLICY, RateLimitHeaders.STATE)) {
                String value = a.header(name);
                assertTrue(value != null && !value.isEmpty(), name + " on " + a.statusLine());
                fields.add(Map.of("name", name, "value", value));
            }
        }
        assertTrue(fields.stream().anyMatch(f -> f.get("value").contains("qu=\"slidegate-tokens\"")), fields.toString());
        assertTrue(fields.stream().anyMatch(f -> f.get("value").contains("qu=\"concurrent-requests\"")), fields.toString());

        // a partition key names the caller's window in both fields: the same for one key, another for another key, and not
        // the key itself; a policy that does not ask for it says none
        String pk = partitionKey(mine, RateLimitHeaders.STATE);
        assertEquals(pk, partitionKey(mine, RateLimitHeaders.POLICY), "both fields name one partition");
        assertEquals(pk, partitionKey(mineAgain, RateLimitHeaders.STATE), "one caller key, one partition");
        assertTrue(!pk.equals(partitionKey(other, RateLimitHeaders.STATE)), "another key, another partition");
        assertTrue(!new String(java.util.Base64.getDecoder().decode(pk), java.nio.charset.StandardCharsets.ISO_8859_1)
                .contains("sfv-"), "the partition key is not the caller's key");
        assertTrue(!answers.get(0).header(RateLimitHeaders.STATE).contains(";pk="), "products does not ask for pk");

        ObjectMapper json = new ObjectMapper();
        JsonNode verdicts = json.readTree(independentlyParsed(json.writeValueAsString(fields)));
        assertEquals(fields.size(), verdicts.size());
        for (JsonNode v : verdicts) {
            assertEquals(0, v.get(2).size(), v.get(0).asText() + ": " + v.get(1).asText() + " -> " + v.get(2));
        }

        // the refusal: the draft's problem type, naming the quota policy its RateLimit-Policy field names
        JsonNode problem = json.readTree(refused.asString());
        assertEquals("https://iana.org/assignments/http-problem-types#quota-exceeded", problem.get("type").asText());
        assertEquals("reports-1h", problem.get("violated-policies").get(0).asText());
        assertTrue(refused.header(RateLimitHeaders.POLICY).startsWith("\"reports-1h\";"), refused.header("RateLimit-Policy"));
        assertEquals(refused.header("Retry-After"), problem.get("retryAfter").asText(), "Retry-After and retryAfter agree");
        assertEquals("reports", problem.get("policy").asText());
        assertEquals("100/1h", problem.get("limit").asText());
    }

    /** The byte sequence of the {@code pk} parameter in {@code field} of {@code answer} (base64, between colons). */
    private static String partitionKey(Response answer, String field) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(";pk=:([A-Za-z0-9+/=]+):").matcher(answer.header(field));
        assertTrue(m.find(), field + " names the partition: " + answer.header(field));
        return m.group(1);
    }

    /** The verdicts of the JavaScript reader on {@code fields} (JSON). */
    private static String independentlyParsed(String fields) throws Exception {
        String test = "StructuredFieldsTest";
        Path node = Tools.require("node", test, "apt-get install nodejs npm");
        Path npm = Tools.require("npm", test, "apt-get install nodejs npm");
        Path dir = Path.of("target", "sfv").toAbsolutePath();
        Files.createDirectories(dir);
        if (!Files.isDirectory(dir.resolve("node_modules/structured-headers"))) {
            Process install = new ProcessBuilder(npm.toString(), "install", "--no-save", "--no-audit", "--no-fund", "--prefix",
                    dir.toString(), LIBRARY).redirectErrorStream(true).redirectOutput(dir.resolve("npm.log").toFile()).start();
            if (!install.waitFor(120, TimeUnit.SECONDS) || install.exitValue() != 0) {
                install.destroyForcibly();
                Tools.missing(test, "the npm package " + LIBRARY + " from the npm registry (npm install failed: "
                        + dir.resolve("npm.log") + ")");
            }
        }
        Path script = dir.resolve("sfv-check.mjs");
        try (var in = StructuredFieldsTest.class.getResourceAsStream("/slidegate/sfv-check.mjs")) {
            Files.write(script, in.readAllBytes());
        }
        Process check = new ProcessBuilder(node.toString(), script.toString()).directory(dir.toFile())
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        check.getOutputStream().write(fields.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        check.getOutputStream().close();
        String out = new String(check.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(check.waitFor(60, TimeUnit.SECONDS), "the JavaScript reader ended");
        assertEquals(0, check.exitValue(), "the JavaScript reader: " + out);
        return out;
    }
}
