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
        String log = startStopping("-Dslidegate.store=redis");
        assertTrue(log.contains("slidegate.store=redis needs the Quarkus Redis client: add the dependency "
                + "io.quarkus:quarkus-redis-client to the service"), log);
    }

    // Envoy's rate-limit service needs quarkus-grpc and jackson-dataformat-yaml, which this service lacks
    @Test
    void askingForEnvoysRateLimitServiceWithoutGrpcStopsStartUpWithOneSentence() throws Exception {
        String log = startStopping("-Dslidegate.rls.enabled=true", "-Dslidegate.rls.config=nowhere.yaml");
        assertTrue(log.contains("slidegate.rls.enabled=true needs io.quarkus:quarkus-grpc and "
                + "com.fasterxml.jackson.dataformat:jackson-dataformat-yaml in the service when it is built"), log);
    }

    /**
     * Starts the packaged service (the native executable when {@code native.image.path} names one, else the jar) with
     * {@code properties} and returns its output once start-up stopped by itself, as it must.
     */
    private static String startStopping(String... properties) throws Exception {
        String executable = System.getProperty("native.image.path");
        Path artifact = Path.of(executable != null ? executable : "target/quarkus-app/quarkus-run.jar");
        assertTrue(Files.exists(artifact), "the service was packaged: " + artifact.toAbsolutePath());
        File out = File.createTempFile("minimal-consumer", ".log");
        List<String> cmd = new java.util.ArrayList<>(List.of(executable != null ? executable
                : Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Dquarkus.http.port=0"));
        cmd.addAll(List.of(properties));
        if (executable == null) {
            cmd.addAll(List.of("-jar", artifact.toString()));
        }
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out).start();
        try {
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), "start-up stops by itself");
            String log = Files.readString(out.toPath(), StandardCharsets.UTF_8);
            assertNotEquals(0, p.exitValue(), log);
            return log;
        } finally {
            p.destroyForcibly();
        }
    }
}
