package dev.slidegate.arch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The packages of {@code dev.slidegate} depend one way, as docs/architecture.md's layout says: every reference
 * from one package to another (an import or a fully qualified name) is read from the sources, and the
 * graph must be exactly the allowed layers: no cycle, no layer reaching up.
 */
class PackageDependenciesTest {

    /** What each package may use; anything else is a dependency the layering forbids. */
    private static final Map<String, Set<String>> ALLOWED = Map.ofEntries(
            Map.entry("api", Set.of()),
            Map.entry("core", Set.of("api")),
            Map.entry("memory", Set.of("api", "core")),
            Map.entry("redis", Set.of("api", "core")),
            Map.entry("metrics", Set.of("api", "core")),
            Map.entry("config", Set.of("api", "core", "memory", "redis", "metrics")),
            Map.entry("http", Set.of("api", "core", "config")),
            Map.entry("engine", Set.of("api", "core", "config", "metrics")),
            Map.entry("entry", Set.of("api", "core", "config", "http", "metrics", "engine", "rls")),
            // Envoy's rate-limit service: an entry point of its own, below the one that binds the catalog
            Map.entry("rls", Set.of("api", "core", "config", "http", "engine")),
            Map.entry("admin", Set.of("api", "core", "config", "http", "metrics")),
            Map.entry("health", Set.of("api", "core", "config", "metrics")),
            // the test kit for a service's own tests: the clock, and the store and catalog it empties
            Map.entry("testkit", Set.of("api", "core", "config")));

    private static final Pattern REFERENCE = Pattern.compile("\\bdev\\.slidegate\\.([a-z]+)\\.");

    @Test
    void packagesDependOnlyDownwards() throws IOException {
        Map<String, Set<String>> found = new TreeMap<>();
        Path root = Path.of("src/main/java/dev/slidegate");
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                String from = root.relativize(f).getName(0).toString();
                Matcher m = REFERENCE.matcher(Files.readString(f));
                while (m.find()) {
                    if (!m.group(1).equals(from)) {
                        found.computeIfAbsent(from, k -> new TreeSet<>()).add(m.group(1));
                    }
                }
            }
        }
        assertTrue(found.size() >= 8, "read the sources: " + found);
        Map<String, Set<String>> forbidden = new TreeMap<>();
        // the demo is a user of the library: the public API and the problem bodies, nothing else
        Map<String, Set<String>> allowed = new java.util.HashMap<>(ALLOWED);
        allowed.put("demo", Set.of("api", "http"));
        found.forEach((from, to) -> to.stream().filter(t -> !allowed.getOrDefault(from, Set.of()).contains(t))
                .forEach(t -> forbidden.computeIfAbsent(from, k -> new TreeSet<>()).add(t)));
        assertEquals(Map.of(), forbidden, "package dependencies the layering forbids (all found: " + found + ")");
    }

    // issue 57: each stage of the engine is one job a reader takes in whole; a class that grows past ~300 lines is
    // two jobs (Decider was 659 lines, Upstreams 536, Leases 355 before they were split)
    @Test
    void everyClassOfTheEngineStaysShort() throws IOException {
        Map<String, Long> longer = new TreeMap<>();
        int read = 0;
        try (Stream<Path> files = Files.list(Path.of("src/main/java/dev/slidegate/engine"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                long lines = Files.readAllLines(f).size();
                read++;
                if (lines > 320) {
                    longer.put(f.getFileName().toString(), lines);
                }
            }
        }
        assertTrue(read >= 10, "read the engine: " + read + " files");
        assertEquals(Map.of(), longer, "engine classes over ~300 lines");
    }
}
