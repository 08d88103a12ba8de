package dev.slidegate.testing;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * Programs a test needs that no Maven artifact can bring (wrk, redis-benchmark, chromium): found on
 * the PATH, or else the test is skipped with the reason printed, on a machine with only a JDK. Under CI
 * ({@code CI} set, as {@code .ci/run} does, after installing them) a missing program fails the test
 * instead: what CI installs must run.
 */
public final class Tools {

    private Tools() {
    }

    /** The program {@code name} on the PATH. */
    public static Optional<Path> onPath(String name) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path candidate = Path.of(dir.isEmpty() ? "." : dir, name);
            if (Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /** {@code name} on the PATH, or the test {@code test} skips (fails under CI) saying how to install it. */
    public static Path require(String name, String test, String install) {
        Optional<Path> found = onPath(name);
        if (found.isEmpty()) {
            missing(test, name + " (" + install + ")");
        }
        return found.orElseThrow();
    }

    /** Skips the calling test with {@code what} it lacks printed, or fails it under CI. */
    public static void missing(String test, String what) {
        String reason = test + " needs " + what + ", which this machine lacks";
        if (System.getenv("CI") != null) {
            Assertions.fail(reason + "; under CI (.ci/run installs it) that is a failure, not a skip");
        }
        System.out.println("SKIPPED " + reason);
        Assumptions.abort(reason);
    }
}
