package dev.slidegate.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code redis-server} process on a free loopback port, started and stopped by the test.
 *
 * <p>
 * The binary is {@code $REDIS_SERVER}, else {@code redis-server} on the PATH, else the Redis 6.2
 * binary bundled in the test-scope {@code embedded-redis} artifact, so a machine with only a JDK runs
 * the suite. Never port 6379, never a server this fixture did not start.
 */
public final class RedisServer implements AutoCloseable {

    /** The Redis 6.2 binaries the test-scope embedded-redis artifact ships, by {@code os.name/os.arch}. */
    private static final Map<String, String> BUNDLED = Map.of(
            "Linux/amd64", "redis-server-6.2.6-v5-linux-amd64",
            "Linux/aarch64", "redis-server-6.2.7-linux-arm64",
            "Linux/x86", "redis-server-6.2.7-linux-386",
            "Linux/i386", "redis-server-6.2.7-linux-386",
            "Mac OS X/x86_64", "redis-server-6.2.6-v5-darwin-amd64",
            "Mac OS X/aarch64", "redis-server-6.2.6-v5-darwin-arm64");

    private final Process process;
    private final int port;
    private final String binary;
    private final Path log;

    /** What the server has logged so far (none once it is closed). */
    public java.util.stream.Stream<String> logLines() {
        try {
            return Files.readAllLines(log).stream();
        } catch (IOException gone) {
            return java.util.stream.Stream.empty();
        }
    }

    private RedisServer(Process process, int port, String binary, Path log) {
        this.process = process;
        this.port = port;
        this.binary = binary;
        this.log = log;
    }

    /** Starts the default binary (see class comment). */
    public static RedisServer start() {
        return start(defaultBinary());
    }

    /**
     * Starts the system's redis-server ({@code $REDIS_SERVER}, else the PATH's), which must be
     * {@code major}.x or newer, and prints which version the calling test runs on. Without a system
     * redis-server (a machine with only a JDK) the calling test is skipped with that reason; with an
     * older one it fails: a test that asks for Redis 7 never runs on 6.2 unnoticed.
     */
    public static RedisServer startAtLeast(int major, String test) {
        String binary = systemBinary().orElse(null);
        if (binary == null) { // skipped with the reason printed, or failed under CI, which installs it
            Tools.missing(test,
                    "redis-server " + major + ".x or newer on the PATH or in $REDIS_SERVER (apt-get install redis-server)");
        }
        RedisServer server = start(binary);
        String version = server.version();
        int found = Integer.parseInt(version.split("\\.")[0]);
        if (found < major) {
            server.close();
            throw new IllegalStateException(
                    test + " asked for Redis " + major + ".x or newer, but " + binary + " is " + version);
        }
        System.out.println(test + " runs on redis-server " + version + " (" + binary + ")");
        return server;
    }

    /** Starts the default binary on a given port, e.g. to bring a killed server back empty where it was. */
    public static RedisServer startOn(int port) {
        return start(defaultBinary(), port);
    }

    /** Starts the default binary on a given port with settings of its own, e.g. to restart a persistent server. */
    public static RedisServer startOn(int port, String... extraArgs) {
        return start(defaultBinary(), port, extraArgs);
    }

    public static RedisServer start(String binary, String... extraArgs) {
        return start(binary, -1, extraArgs);
    }

    static RedisServer start(String binary, int fixedPort, String... extraArgs) {
        IllegalStateException last = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            int port = fixedPort > 0 ? fixedPort : Ports.free();
            List<String> cmd = new ArrayList<>(List.of(binary, "--port", Integer.toString(port), "--bind", "127.0.0.1",
                    "--save", "", "--appendonly", "no", "--daemonize", "no", "--protected-mode", "no"));
            cmd.addAll(List.of(extraArgs));
            try {
                Path log = Leftovers.tempFile("redis-" + port, ".log");
                Process p = Leftovers
                        .process(launch(new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile())));
                try {
                    if (waitForPing(p, port)) {
                        return new RedisServer(p, port, binary, log);
                    }
                } catch (IllegalStateException someoneElse) {
                    p.destroyForcibly();
                    Leftovers.delete(log);
                    if (fixedPort > 0) {
                        throw someoneElse;
                    }
                    last = someoneElse;
                    continue;
                }
                p.destroyForcibly();
                last = new IllegalStateException(
                        "redis-server on port " + port + " did not answer PING: " + Files.readString(log));
                Leftovers.delete(log);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start " + binary, e);
            }
        }
        throw last;
    }

    /**
     * Starts a process, retrying while the kernel answers "Text file busy" (ETXTBSY, error 26): a binary
     * just written (the bundled one, unpacked under target/redis) cannot be executed while any process
     * still holds a descriptor open for writing it, and a process forked at that moment by another test
     * thread inherits such a descriptor until it has closed its descriptors or executed its own
     * program. That lasts milliseconds; the retries allow two seconds.
     */
    static Process launch(ProcessBuilder builder) throws IOException {
        for (int attempt = 1;; attempt++) {
            try {
                return builder.start();
            } catch (IOException e) {
                boolean busy = String.valueOf(e.getMessage()).contains("error=26");
                if (!busy || attempt == 100) {
                    throw e;
                }
                sleep(20);
            }
        }
    }

    /**
     * Waits until the server answers PING, and checks that the server answering is the process just
     * started (its {@code INFO server} process id), never another one that holds the port: tests flush
     * and kill their servers, which must never reach one they did not start.
     */
    private static boolean waitForPing(Process p, int port) {
        try {
            long pid = Eventually.eventually(Duration.ofSeconds(10), () -> {
                if (!p.isAlive()) {
                    return -2L;
                }
                try (Resp r = new Resp(port)) {
                    return "PONG".equals(r.call("PING")) ? processId(String.valueOf(r.call("INFO", "server"))) : -1L;
                }
            }, answer -> answer != -1L, "redis-server to answer PING on port " + port);
            if (pid == -2L) {
                return false;
            }
            if (pid != p.pid()) {
                throw new IllegalStateException("port " + port + " is answered by redis-server process " + pid
                        + ", not by the one this test started (" + p.pid() + ")");
            }
            return true;
        } catch (AssertionError notInTime) {
            return false;
        }
    }

    /** The {@code process_id} field of an {@code INFO server} reply, or -1. */
    static long processId(String info) {
        return info.lines().filter(l -> l.startsWith("process_id:")).mapToLong(l -> Long.parseLong(l.substring(11).trim()))
                .findFirst()
                .orElse(-1);
    }

    public static String defaultBinary() {
        return systemBinary().or(RedisServer::bundledBinary).orElseThrow(() -> new IllegalStateException(
                "No redis-server: install one (apt-get install redis-server) or set REDIS_SERVER"));
    }

    /** {@code $REDIS_SERVER}, else redis-server on the PATH. */
    private static Optional<String> systemBinary() {
        String env = System.getenv("REDIS_SERVER");
        if (env != null && !env.isBlank()) {
            return Optional.of(env);
        }
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            Path candidate = Paths.get(dir, "redis-server");
            if (Files.isExecutable(candidate)) {
                return Optional.of(candidate.toString());
            }
        }
        return Optional.empty();
    }

    /**
     * The bundled Redis 6.2 binary for this machine's OS and architecture, unpacked under target/redis; empty where none is
     * shipped.
     */
    public static synchronized Optional<String> bundledBinary() {
        String bundled = BUNDLED.get(System.getProperty("os.name") + "/" + System.getProperty("os.arch"));
        if (bundled == null) {
            return Optional.empty();
        }
        Path target = Paths.get("target", "redis", bundled).toAbsolutePath();
        if (Files.isExecutable(target)) {
            return Optional.of(target.toString());
        }
        try (InputStream in = RedisServer.class.getClassLoader().getResourceAsStream(bundled)) {
            if (in == null) {
                return Optional.empty();
            }
            Files.createDirectories(target.getParent());
            Path tmp = Files.createTempFile(target.getParent(), "redis", ".tmp");
            Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
            tmp.toFile().setExecutable(true);
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return Optional.of(target.toString());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot unpack the bundled redis-server", e);
        }
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The operating system's id of the server process. */
    public long pid() {
        return process.pid();
    }

    public int port() {
        return port;
    }

    public String uri() {
        return "redis://127.0.0.1:" + port;
    }

    /** The server's {@code INFO server} version, e.g. {@code 7.0.15}. */
    public String version() {
        try (Resp r = new Resp(port)) {
            String info = (String) r.call("INFO", "server");
            return info.lines().filter(l -> l.startsWith("redis_version:")).findFirst().map(l -> l.substring(14).trim())
                    .orElse("?");
        }
    }

    /** Script calls ({@code EVALSHA} and {@code EVAL}) the server has served, from {@code INFO commandstats}. */
    public long scriptCalls() {
        try (Resp r = connect()) {
            long calls = 0;
            for (String line : String.valueOf(r.call("INFO", "commandstats")).split("\r?\n")) {
                if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
                    String c = line.substring(line.indexOf("calls=") + 6);
                    calls += Long.parseLong(c.substring(0, c.indexOf(',')));
                }
            }
            return calls;
        }
    }

    /** Sends a signal to the server process, e.g. {@code STOP} to freeze it and {@code CONT} to thaw it. */
    public void signal(String name) {
        try {
            new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start().waitFor();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public String binary() {
        return binary;
    }

    /** A new connection for assertions; close it. */
    public Resp connect() {
        return new Resp(port);
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Leftovers.stopped(process);
        Leftovers.delete(log);
    }
}
