package example;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** The packaged service, started as its users start it, with a setting that needs a dependency it lacks. */
class StartUpIT {

    @Test
    void askingForRedisWithoutTheRedisClientStopsStartUpWithOneSentence() throws Exception {
        Path jar = Path.of("target/quarkus-app/quarkus-run.jar");
        assertTrue(Files.exists(jar), "the service was packaged: " + jar.toAbsolutePath());
        File out = File.createTempFile("minimal-consumer", ".log");
        Process p = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dslidegate.store=redis", "-Dquarkus.http.port=0", "-jar", jar.toString()))
                .redirectErrorStream(true).redirectOutput(out).start();
        try {
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), "start-up stops by itself");
            String log = Files.readString(out.toPath(), StandardCharsets.UTF_8);
            assertNotEquals(0, p.exitValue(), log);
            assertTrue(log.contains("slidegate.store=redis needs the Quarkus Redis client: add the dependency "
                    + "io.quarkus:quarkus-redis-client to the service"), log);
        } finally {
            p.destroyForcibly();
        }
    }
}
