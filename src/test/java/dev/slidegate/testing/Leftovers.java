package dev.slidegate.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * What tests start and create outside the JVM (server and service processes, temporary files and
 * directories): each fixture removes its own when closed, and a shutdown hook removes whatever is left
 * when the JVM ends first (a failed start-up, a crash, an interrupted run).
 */
public final class Leftovers {

    private static final Set<Process> PROCESSES = ConcurrentHashMap.newKeySet();
    private static final Set<Path> PATHS = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            PROCESSES.forEach(p -> p.descendants().forEach(ProcessHandle::destroyForcibly));
            PROCESSES.forEach(Process::destroyForcibly);
            PATHS.forEach(Leftovers::deleteQuietly);
        }, "slidegate-test-leftovers"));
    }

    private Leftovers() {
    }

    /** Stops {@code p} at the latest when the JVM ends. */
    public static Process process(Process p) {
        PROCESSES.add(p);
        return p;
    }

    /** {@code p} was stopped by its fixture. */
    public static void stopped(Process p) {
        PROCESSES.remove(p);
    }

    /** A new temporary file, deleted by {@link #delete} or at the latest when the JVM ends. */
    public static Path tempFile(String prefix, String suffix) {
        try {
            Path p = Files.createTempFile(prefix, suffix);
            PATHS.add(p);
            return p;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A new temporary directory, deleted with its contents by {@link #delete} or at the latest when the JVM ends. */
    public static Path tempDirectory(String prefix) {
        try {
            Path p = Files.createTempDirectory(prefix);
            PATHS.add(p);
            return p;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Deletes a file or a directory with its contents, now. */
    public static void delete(Path p) {
        deleteQuietly(p);
        PATHS.remove(p);
    }

    private static void deleteQuietly(Path p) {
        if (!Files.exists(p)) {
            return;
        }
        try (Stream<Path> all = Files.walk(p)) {
            all.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // best effort: a file another process still writes may stay
        }
    }
}
