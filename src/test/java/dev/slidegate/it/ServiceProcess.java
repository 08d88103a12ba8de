package dev.slidegate.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.slidegate.testing.Eventually;
import dev.slidegate.testing.Leftovers;
import dev.slidegate.testing.Ports;

/** The packaged service ({@code target/quarkus-app/quarkus-run.jar}) as a separate process on a free port. */
public final class ServiceProcess implements AutoCloseable {

    /**
     * The demo answers Envoy's rate-limit service (on 9081): an instance started here does not, unless its test names a
     * {@code slidegate.rls.*} setting (a listener, its Vert.x and its rules are start-up work on every one of some 50
     * starts, and instances side by side would want the one port).
     */
    static final String NO_RLS = "-Dslidegate.rls.enabled=false";

    /** {@link #NO_RLS}, unless {@code properties} name a setting of Envoy's rate-limit service. */
    private static void noRls(List<String> cmd, String... properties) {
        if (java.util.Arrays.stream(properties).noneMatch(p -> p.startsWith("-Dslidegate.rls."))) {
            cmd.add(NO_RLS);
        }
    }

    /** What a start-up probe says before the log when the process has ended. */
    private static final String EXITED = "<exited>";

    static final Path JAR = Paths.get("target", "quarkus-app", "quarkus-run.jar");
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /**
     * The class data of the jar's start-up on this JVM (a dynamic CDS archive), written once per run by a start of the
     * jar that answers one request and stops, before the first service a test asks for: every start then maps it instead
     * of loading and verifying those classes again, about 0.6 s sooner on a 2-core machine (some 50 starts a
     * {@code verify}). Class data changes how classes are loaded, not what the service does; a start through a
     * {@link Launcher} (the benchmarks' start times) never uses it. Made anew by every run, for the jar it packaged.
     */
    private static final class ClassData {
        static final Path ARCHIVE = Leftovers.tempDirectory("slidegate-cds").resolve("jar.jsa");
        // the JVM's own lines about the archive (which classes it skips) would land in the logs the tests read
        static final String QUIET = "-Xlog:cds*=off";
        private static Boolean ready;

        /** The options that map the archive, once it is written; none when it could not be. */
        static synchronized List<String> options() {
            if (ready == null) {
                ready = write();
            }
            return ready ? List.of("-XX:SharedArchiveFile=" + ARCHIVE, QUIET) : List.of();
        }

        private static boolean write() {
            int port = Ports.free();
            List<String> cmd = List.of(javaBinary(), "-XX:ArchiveClassesAtExit=" + ARCHIVE, QUIET,
                    "-Dquarkus.http.port=" + port, NO_RLS, "-jar", JAR.toString());
            ServiceProcess training = null;
            try {
                training = start(cmd, port);
                training.get("/api/products");
            } catch (RuntimeException e) {
                System.out.println("ServiceProcess: no class-data archive, every start loads its classes: " + e.getMessage());
            } finally {
                if (training != null) {
                    training.close(); // the archive is written as the JVM exits, which close() waits for
                }
            }
            return Files.isRegularFile(ARCHIVE);
        }
    }

    private final Process process;
    private final Path log;
    public final int port;

    private ServiceProcess(Process process, Path log, int port) {
        this.process = process;
        this.log = log;
        this.port = port;
    }

    /** The operating system's id of the service process. */
    public long pid() {
        return process.pid();
    }

    /** Runs the jar with {@code -D} properties and waits until it answers HTTP. */
    public static ServiceProcess start(String... properties) {
        int port = Ports.free();
        return start(command(port, true, properties), port);
    }

    /** Several instances, started side by side (their start-ups overlap), closed together. */
    public record Fleet(List<ServiceProcess> instances) implements AutoCloseable {

        @Override
        public void close() {
            instances.forEach(ServiceProcess::close);
        }
    }

    /** {@code count} instances with the same {@code -D} properties, started side by side; see {@link #start(String...)}. */
    public static Fleet fleet(int count, String... properties) {
        List<String[]> each = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            each.add(properties);
        }
        return fleet(each);
    }

    /** One instance per set of {@code -D} properties, started side by side. */
    public static Fleet fleet(List<String[]> properties) {
        java.util.concurrent.ExecutorService starting = java.util.concurrent.Executors.newFixedThreadPool(properties.size());
        try {
            List<java.util.concurrent.Future<ServiceProcess>> started = new ArrayList<>();
            for (String[] p : properties) {
                started.add(starting.submit(() -> start(p)));
            }
            List<ServiceProcess> up = new ArrayList<>();
            RuntimeException failed = null;
            for (java.util.concurrent.Future<ServiceProcess> f : started) {
                try {
                    up.add(f.get());
                } catch (java.util.concurrent.ExecutionException e) {
                    failed = e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    failed = new IllegalStateException(e);
                }
            }
            if (failed != null) {
                up.forEach(ServiceProcess::close);
                throw failed;
            }
            return new Fleet(List.copyOf(up));
        } finally {
            starting.shutdown();
        }
    }

    /**
     * As {@link #start(String...)}, but exactly as a user starts the jar ({@code java -jar}, no class-data archive):
     * for a test of the first seconds after start, when how long classes take to load is part of what it judges.
     */
    public static ServiceProcess startAsUsersDo(String... properties) {
        int port = Ports.free();
        return start(command(port, false, properties), port);
    }

    /**
     * Runs the service with {@code launcher} (a native executable, or a {@code java} binary followed by
     * {@code -jar} and the jar is appended), whatever this build made: for benchmarks that run both side by side.
     */
    public static ServiceProcess start(Launcher launcher, String... properties) {
        int port = Ports.free();
        List<String> cmd = new ArrayList<>();
        cmd.add(launcher.program());
        cmd.add("-Dquarkus.http.port=" + port);
        noRls(cmd, properties);
        cmd.addAll(List.of(properties));
        if (launcher.jar() != null) {
            cmd.addAll(List.of("-jar", launcher.jar().toString()));
        }
        return start(cmd, port);
    }

    /** How to run the service: a native executable ({@code jar} null), or {@code java -jar jar}. */
    public record Launcher(String program, Path jar) {

        public static Launcher nativeExecutable(Path executable) {
            return new Launcher(executable.toString(), null);
        }

        public static Launcher jar(Path javaBinary) {
            return new Launcher(javaBinary.toString(), JAR);
        }
    }

    private static ServiceProcess start(List<String> cmd, int port) {
        // each test says what it started, so that a report shows whether the executable or the jar was tested
        System.out.println("[ServiceProcess] started " + (nativeExecutable() ? "the native executable " : "the jar with ")
                + cmd.get(0) + " on port " + port);
        try {
            Path log = Leftovers.tempFile("slidegate-" + port, ".log");
            Process p = Leftovers
                    .process(new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start());
            ServiceProcess service = new ServiceProcess(p, log, port);
            String seen;
            try {
                seen = Eventually.eventually(Duration.ofSeconds(60), () -> (p.isAlive() ? "" : EXITED) + Files.readString(log),
                        out -> out.startsWith(EXITED) || out.contains("Listening on"), "the service to listen on " + port);
            } catch (AssertionError notInTime) {
                service.close();
                throw notInTime;
            }
            if (seen.startsWith(EXITED)) {
                throw new IllegalStateException("the service exited: " + seen.substring(EXITED.length()));
            }
            return service;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs the jar expecting it to fail at start-up; returns exit code and output. */
    static Result runToExit(String... properties) throws IOException, InterruptedException {
        return runToExit(java.util.Map.of(), properties);
    }

    /** As {@link #runToExit(String...)}, with these environment variables besides the inherited ones. */
    static Result runToExit(java.util.Map<String, String> environment, String... properties)
            throws IOException, InterruptedException {
        List<String> cmd = command(Ports.free(), true, properties);
        if (!nativeExecutable()) { // a start-up that stops: the JIT's top tier and a parallel GC would only cost time
            cmd.addAll(1, List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
        }
        ProcessBuilder builder = new ProcessBuilder(cmd).redirectErrorStream(true);
        builder.environment().putAll(environment);
        Process p = Leftovers.process(builder.start());
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("still running: " + out);
        }
        Leftovers.stopped(p);
        return new Result(p.exitValue(), out);
    }

    record Result(int exitCode, String output) {
    }

    HttpResponse<String> get(String path, String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10));
        if (headers.length > 0) {
            b.headers(headers);
        }
        return send(b.GET().build());
    }

    HttpResponse<String> postJson(String path, String json) {
        return send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build());
    }

    private static HttpResponse<String> send(HttpRequest request) {
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public String log() throws IOException {
        return Files.readString(log);
    }

    /**
     * The native executable when the build made one ({@code -Dnative}: failsafe says so in
     * {@code slidegate.it.native}), else the jar on this JVM; either takes the properties as {@code -D}.
     */
    static boolean nativeExecutable() {
        if (!"true".equals(System.getProperty("slidegate.it.native"))) {
            return false;
        }
        Path executable = Paths.get(System.getProperty("native.image.path", ""));
        if (!Files.isExecutable(executable)) {
            // a native run must run the executable: never the jar in its place, passing for what it did not test
            throw new IllegalStateException("a native run (-Dnative) found no executable at " + executable.toAbsolutePath());
        }
        return true;
    }

    private static List<String> command(int port, boolean classData, String... properties) {
        List<String> cmd = new ArrayList<>();
        if (nativeExecutable()) {
            cmd.add(System.getProperty("native.image.path"));
            cmd.add("-Dquarkus.http.port=" + port);
            noRls(cmd, properties);
            cmd.addAll(List.of(properties));
        } else {
            cmd.add(javaBinary());
            if (classData) {
                cmd.addAll(ClassData.options());
                // the JIT's first tier only: most starts here serve a few hundred requests, where the top tier's compiles
                // cost more CPU than they save on these 2 cores (~20 s of a verify); the start as a user makes it, and
                // the benchmarks' starts (a Launcher), keep the JVM's defaults
                cmd.add("-XX:TieredStopAtLevel=1");
            }
            cmd.add("-Dquarkus.http.port=" + port);
            noRls(cmd, properties);
            cmd.addAll(List.of(properties));
            cmd.addAll(List.of("-jar", JAR.toString()));
        }
        return cmd;
    }

    private static String javaBinary() {
        return Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Leftovers.stopped(process);
        Leftovers.delete(log);
    }
}
