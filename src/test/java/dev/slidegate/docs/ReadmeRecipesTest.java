package dev.slidegate.docs;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * The README's code is run as printed (issue 58): every line of its Java and properties blocks is in
 * {@code src/it/consumer}, a service built and tested on the installed artifact in every {@code ./mvnw verify}, whose
 * {@code ConsumerTest} runs each recipe and asserts the answers the README shows. A body the README elides
 * ({@code { ... }}) is the consumer's own; a host name the test cannot reach ({@code redis://redis:6379}) is given by
 * the consumer's Redis test, under the same setting.
 */
class ReadmeRecipesTest {

    private static final Path README = Path.of("README.md");
    private static final Path CONSUMER = Path.of("src/it/consumer");
    private static final Pattern BLOCK = Pattern.compile("```(java|properties|shell)\\n(.*?)```", Pattern.DOTALL);

    private static List<String[]> blocks() throws IOException {
        return blocks(README);
    }

    private static List<String[]> blocks(Path doc) throws IOException {
        List<String[]> blocks = new ArrayList<>();
        Matcher m = BLOCK.matcher(Files.readString(doc));
        while (m.find()) {
            blocks.add(new String[] { m.group(1), m.group(2) });
        }
        return blocks;
    }

    private static List<String> trimmedLines(Path... files) throws IOException {
        List<String> lines = new ArrayList<>();
        for (Path f : files) {
            Files.readAllLines(f).forEach(l -> lines.add(code(l)));
        }
        return lines;
    }

    /** A line's code: trimmed, without a trailing {@code //} comment (the README's comments explain, the code runs). */
    private static String code(String line) {
        return line.replaceFirst("\\s+//.*$", "").trim();
    }

    @Test
    void everyJavaLineTheReadmePrintsIsInTheConsumerThatRunsIt() throws IOException {
        List<String> consumer = trimmedLines(CONSUMER.resolve("src/main/java/example/ReadmeRecipes.java"),
                CONSUMER.resolve("src/main/java/example/OrderResource.java"),
                CONSUMER.resolve("src/test/java/example/ConsumerTest.java"));
        int checked = 0;
        for (String[] block : blocks()) {
            if (!block[0].equals("java") || block[1].contains("@Inject RateLimiter")) {
                continue;
            }
            for (String raw : block[1].split("\n")) {
                String line = code(raw);
                if (line.isEmpty() || line.equals("}") || line.startsWith("import ") || line.startsWith("@Path(\"/orders\")")
                        || line.startsWith("public class OrderResource")) {
                    continue;
                }
                String prefix = line.endsWith("{ ... }") ? line.substring(0, line.length() - "{ ... }".length()) : null;
                boolean found = consumer.stream().anyMatch(c -> prefix == null ? c.equals(line) : c.startsWith(prefix));
                assertTrue(found, "README line not run by src/it/consumer: " + line);
                checked++;
            }
        }
        assertTrue(checked >= 15, "java lines checked: " + checked);
    }

    @Test
    void everySettingTheReadmePrintsIsInTheConsumerThatRunsIt() throws IOException {
        List<String> properties = trimmedLines(CONSUMER.resolve("src/main/resources/application.properties"));
        String redisTest = Files.readString(CONSUMER.resolve("src/test/java/example/RedisConsumerTest.java"));
        int checked = 0;
        for (String[] block : blocks()) {
            if (!block[0].equals("properties")) {
                continue;
            }
            for (String raw : block[1].split("\n")) {
                String line = raw.trim();
                if (line.isEmpty() || line.startsWith("#")) {
                    continue;
                }
                if (line.startsWith("slidegate.rls.")) { // Envoy's rate-limit service: served by the demo (ZEnvoyRlsIT)
                    assertTrue(trimmedLines(Path.of("src/main/resources/application.properties")).contains(line),
                            "README setting of Envoy's rate-limit service not in the demo's: " + line);
                } else if (line.startsWith("quarkus.redis.slidegate.hosts=")) {
                    assertTrue(redisTest.contains("\"quarkus.redis.slidegate.hosts\""),
                            "the consumer's Redis test gives Slidegate's own client its hosts");
                } else {
                    assertTrue(properties.contains(line), "README setting not in src/it/consumer: " + line);
                }
                checked++;
            }
        }
        assertTrue(checked >= 8, "settings checked: " + checked);
    }

    /**
     * docs/recipes.md: its code and settings are the consumer's (the README's four recipes) or the demo service's (the
     * REST client of an API that limits you, tested by the demo's own tests).
     */
    @Test
    void everyLineTheRecipesGuidePrintsIsInACodeThatRunsIt() throws IOException {
        List<String> code = trimmedLines(CONSUMER.resolve("src/main/java/example/ReadmeRecipes.java"),
                CONSUMER.resolve("src/main/java/example/OrderResource.java"),
                Path.of("src/main/java/dev/slidegate/demo/QuotesClient.java"));
        List<String> settings = trimmedLines(CONSUMER.resolve("src/main/resources/application.properties"),
                Path.of("src/main/resources/application.properties"));
        int checked = 0;
        for (String[] block : blocks(Path.of("docs/recipes.md"))) {
            for (String raw : block[1].split("\n")) {
                String line = block[0].equals("java") ? code(raw) : raw.trim();
                if (line.isEmpty() || line.startsWith("#") || line.equals("}")
                        || line.startsWith("quarkus.redis.slidegate.hosts=")) {
                    continue; // the Redis hosts: given by the consumer's Redis test, as the README's test says
                }
                String prefix = line.endsWith("{ ... }") ? line.substring(0, line.length() - "{ ... }".length()) : null;
                List<String> where = block[0].equals("java") ? code : settings;
                assertTrue(where.stream().anyMatch(c -> prefix == null ? c.equals(line) : c.startsWith(prefix)),
                        "docs/recipes.md line not run by the consumer or the demo: " + line);
                checked++;
            }
        }
        assertTrue(checked >= 25, "lines checked: " + checked);
    }

    // the rules docs/envoy.md shows are the demo's, which ZEnvoyRlsIT calls with Envoy's own client stubs
    @Test
    void theEnvoyRecipesRulesAreTheDemosRules() throws IOException {
        Matcher m = Pattern.compile("```yaml\\n(domain: demo\\n.*?)```", Pattern.DOTALL)
                .matcher(Files.readString(Path.of("docs/envoy.md")));
        assertTrue(m.find(), "docs/envoy.md shows the demo's rules");
        List<String> demo = Files.readAllLines(Path.of("src/main/resources/dev/slidegate/demo/envoy-rules.yaml")).stream()
                .filter(l -> !l.trim().startsWith("#")).toList();
        List<String> shown = List.of(m.group(1).split("\n"));
        assertTrue(java.util.Collections.indexOfSubList(demo, shown) >= 0,
                "the README's rules are lines of the demo's envoy-rules.yaml, in order: " + shown);
    }

    @Test
    void theFirst429TheReadmeShowsIsTheOneTheConsumerAsserts() throws IOException {
        String consumerTest = Files.readString(CONSUMER.resolve("src/test/java/example/ConsumerTest.java"));
        String first429 = blocks().stream().filter(b -> b[0].equals("shell") && b[1].contains("429 Too Many Requests"))
                .findFirst().orElseThrow()[1];
        assertTrue(first429.contains("RateLimit-Policy: \"OrderResource.list-1m\";q=3;w=60"), first429);
        assertTrue(consumerTest.contains("\"\\\"OrderResource.list-1m\\\";q=3;w=60\""),
                "ConsumerTest asserts the RateLimit-Policy the README shows");
        assertTrue(first429.contains("\"policy\":\"OrderResource.list\""), first429);
        assertTrue(first429.contains("Content-Type: application/problem+json;charset=UTF-8"), first429);
        assertTrue(consumerTest.contains("header(\"Content-Type\", \"application/problem+json;charset=UTF-8\")"),
                "ConsumerTest asserts the Content-Type the README shows");
        assertTrue(consumerTest.contains("body(\"policy\", equalTo(\"OrderResource.list\"))"));
        assertFalse(Files.readString(README).matches("(?s).*\\b[0-9a-f]{7}\\b`.*issue \\d+.*"),
                "no commit hashes or issue numbers in the README");
    }
}
