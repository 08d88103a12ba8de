package dev.slidegate.it;

import static dev.slidegate.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.slidegate.testing.AdminCredentials;

/** The packaged jar's logs: no secret in any line, refusals summarised, JSON lines by configuration. */
class LogsIT {

    // a Redis password in the URI, an API key, a login password: none of them is printed, even while
    // Redis is unreachable and calls are refused
    @Test
    void noSecretReachesTheLog() throws Exception {
        try (ServiceProcess service = ServiceProcess.start("-Dslidegate.store=redis",
                "-Dquarkus.redis.hosts=redis://:s3cret-pass@127.0.0.1:1",
                "-Dslidegate.redis.timeout=100ms", "-Dslidegate.policies.reports.limits=2/1h")) {
            for (int i = 0; i < 5; i++) {
                service.get("/api/reports", "X-Api-Key", "api-key-do-not-log");
                service.postJson("/api/login", "{\"username\":\"alice\",\"password\":\"password-do-not-log\"}");
            }
            // the summary is written at the first refusal: wait for it, then count
            String log = eventually(Duration.ofSeconds(10), service::log, l -> l.contains("Policy 'reports' refused"),
                    "the refusal summary in the log");
            assertTrue(log.contains("does not answer at start-up"), log);
            assertTrue(log.contains("redis://***@127.0.0.1:1"), "the URI is shown without its credentials:\n" + log);
            for (String secret : List.of("s3cret-pass", "api-key-do-not-log", "password-do-not-log",
                    AdminCredentials.PASSWORD)) {
                assertFalse(log.contains(secret), secret + " in the log:\n" + log);
            }
            long refusalLines = log.lines().filter(l -> l.contains("Policy 'reports' refused")).count();
            assertEquals(1, refusalLines,
                    "3 refusals, one summary line (the first at once, then at most one a minute):\n" + log);
            assertFalse(log.lines().anyMatch(l -> l.contains("WARN") && l.contains("Policy '")), "refusals are not WARNings");
        }
    }

    // a burst the moment the service answers (cold JIT, connections still opening on every event loop):
    // the first decisions are slow, never a reason to skip Redis. The breaker stays closed and no decision
    // is made by the fail mode (the shipped defaults), with the jar started as users start it (no class-data archive)
    @Test
    void aBurstAtColdStartNeverOpensTheBreaker() throws Exception {
        try (dev.slidegate.testing.RedisServer redis = dev.slidegate.testing.RedisServer.start();
                ServiceProcess service = ServiceProcess.startAsUsersDo("-Dquarkus.redis.hosts=" + redis.uri())) {
            java.util.concurrent.atomic.AtomicInteger answered = new java.util.concurrent.atomic.AtomicInteger();
            java.util.concurrent.atomic.AtomicInteger failed = new java.util.concurrent.atomic.AtomicInteger();
            List<Thread> callers = new java.util.ArrayList<>();
            for (int c = 0; c < 32; c++) {
                int caller = c;
                Thread t = new Thread(() -> {
                    for (int i = 0; i < 10; i++) {
                        int status = caller % 2 == 0 ? service.get("/api/products").statusCode()
                                : service.get("/api/reports", "X-Api-Key", "cold-" + caller + "-" + i).statusCode();
                        (status == 200 || status == 429 ? answered : failed).incrementAndGet();
                    }
                });
                t.start();
                callers.add(t);
            }
            for (Thread t : callers) {
                t.join();
            }
            assertEquals(320, answered.get(), failed.get() + " failed");
            String metrics = service.get("/q/metrics").body();
            String log = service.log();
            assertFalse(log.contains("decisions in a row"), "the breaker opened:\n" + log);
            assertFalse(log.contains("decide by their fail mode"), log);
            assertTrue(metrics.lines().filter(l -> l.startsWith("slidegate_failmode_transitions_total"))
                    .allMatch(l -> l.endsWith(" 0.0")), "no switch to the fail mode:\n" + metrics);
            assertTrue(metrics.lines().filter(l -> l.startsWith("slidegate_decisions_total")
                    && (l.contains("outcome=\"error\"") || l.contains("outcome=\"fallback\"")))
                    .allMatch(l -> l.endsWith(" 0.0")),
                    "every decision made by Redis:\n" + metrics);
        }
    }

    // a Redis that evicts any key at maxmemory could drop windows under a key flood: start-up says so,
    // once, with the policies that keep them
    @Test
    void aRedisThatEvictsWindowsIsNamedAtStartUp() throws Exception {
        try (dev.slidegate.testing.RedisServer redis = dev.slidegate.testing.RedisServer
                .start(dev.slidegate.testing.RedisServer.defaultBinary(), "--maxmemory-policy", "allkeys-lru");
                ServiceProcess service = ServiceProcess.start("-Dquarkus.redis.hosts=" + redis.uri())) {
            String log = service.log();
            long warnings = log.lines().filter(l -> l.contains("WARN") && l.contains("maxmemory-policy allkeys-lru")
                    && l.contains("noeviction") && l.contains("volatile-ttl")).count();
            assertEquals(1, warnings, log);
        }
    }

    // a wrong Redis password: start-up says so, with the setting to fix, and never prints the password
    @Test
    void aWrongRedisPasswordIsNamedAtStartUp() throws Exception {
        try (dev.slidegate.testing.RedisServer redis = dev.slidegate.testing.RedisServer.start()) {
            try (dev.slidegate.testing.Resp r = redis.connect()) {
                r.call("CONFIG", "SET", "requirepass", "right-pass");
            }
            assertWrongPasswordNamed(redis);
        }
    }

    private static void assertWrongPasswordNamed(dev.slidegate.testing.RedisServer redis) throws Exception {
        try (ServiceProcess service = ServiceProcess
                .start("-Dquarkus.redis.hosts=redis://:wrong-pass@127.0.0.1:" + redis.port())) {
            String log = service.log();
            assertTrue(
                    log.lines()
                            .anyMatch(l -> l.contains("does not answer at start-up") && l.contains("quarkus.redis.password")),
                    log);
            assertFalse(log.contains("wrong-pass") || log.contains("right-pass"), log);
        }
    }

    @Test
    void jsonLogsByConfiguration() throws Exception {
        try (ServiceProcess service = ServiceProcess.start("-Dquarkus.log.console.json.enabled=true")) {
            String line = service.log().lines().filter(l -> l.contains("Slidegate store")).findFirst().orElseThrow();
            assertTrue(line.startsWith("{") && line.endsWith("}") && line.contains("\"message\":\"Slidegate store: memory"),
                    line);
        }
    }

    // three callers trickling their headers are cut off by the header timeout (here 1 s, so that the
    // test does not wait the demo's 10 s, which HeaderTimeoutTest does): counted in the metrics,
    // summed in one warning, never a line per connection; a normal caller is answered meanwhile.
    // The slow callers come after a first answer: connections accepted between "Listening on" and the
    // timeout's installation (Quarkus' asynchronous start event, or the first request) are not timed,
    // as docs/security.md says, and CI once opened all three within that window
    @Test
    void slowHeadersAreCutOffAndSummedInOneWarning() throws Exception {
        try (ServiceProcess service = ServiceProcess.start("-Dslidegate.http.header-timeout=1s")) {
            assertEquals(200, service.get("/api/products").statusCode());
            List<java.net.Socket> slow = new java.util.ArrayList<>();
            long before = System.nanoTime();
            for (int i = 0; i < 3; i++) {
                java.net.Socket socket = new java.net.Socket("127.0.0.1", service.port);
                socket.setSoTimeout(50);
                socket.getOutputStream().write("GET /api/products HTTP/1.1\r\nHost: x\r\nX-Slow: ".getBytes());
                slow.add(socket);
            }
            assertEquals(200, service.get("/api/products").statusCode());
            for (java.net.Socket socket : slow) {
                dev.slidegate.testing.SlowCaller.trickleUntilClosed(socket, before, 100, 4_000); // 1 s, and slack
                socket.close();
            }
            String metrics = service.get("/q/metrics").body();
            assertTrue(metrics.contains("slidegate_http_header_timeouts_total 3.0"), metrics);
            String log = eventually(Duration.ofSeconds(10), service::log,
                    l -> l.contains("whose request headers took longer than"),
                    "the warning about slow headers in the log");
            assertEquals(1, log.lines().filter(l -> l.contains("whose request headers took longer than")).count(), log);
            assertTrue(log.contains("slidegate.http.header-timeout (1s)"), log);
            assertFalse(log.contains("is not in force"), log);
        }
    }

    // a Redis that cannot save its snapshot refuses every write (MISCONF, with the default
    // stop-writes-on-bgsave-error): readiness names the cause, decisions go to the fail mode (local for
    // the demo), one line names the cause and the fix, and it heals without a restart. The
    // snapshot fails because its file name is a directory (dir and dbfilename are given at start: a
    // running Redis 7 refuses to change them)
    @Test
    void aRedisThatCannotSaveItsSnapshotIsAnOutageNamedOnce() throws Exception {
        java.nio.file.Path dir = dev.slidegate.testing.Leftovers.tempDirectory("slidegate-misconf");
        try (dev.slidegate.testing.RedisServer redis = dev.slidegate.testing.RedisServer.start(
                dev.slidegate.testing.RedisServer.defaultBinary(), "--dir", dir.toString(), "--dbfilename", "blocked");
                dev.slidegate.testing.Resp admin = redis.connect();
                ServiceProcess service = ServiceProcess.start("-Dquarkus.redis.hosts=" + redis.uri())) {
            assertEquals(200, service.get("/q/health/ready").statusCode());
            java.nio.file.Files.createDirectory(dir.resolve("blocked")); // after the start, which would read it
            admin.call("CONFIG", "SET", "save", "3600 1");
            admin.call("BGSAVE");
            eventually(Duration.ofSeconds(30), () -> String.valueOf(admin.call("INFO", "persistence")),
                    info -> info.contains("rdb_last_bgsave_status:err"), "the snapshot failing");
            HttpResponse<String> ready = service.get("/q/health/ready");
            // the demo's fail mode is local: ready, degraded, with the cause (fail mode closed: 503, RedisHealthTest)
            assertEquals(200, ready.statusCode(), ready.body());
            assertTrue(
                    ready.body().contains("refuses writes: Redis refuses writes because it cannot save its snapshot (MISCONF)")
                            && ready.body().contains("\"degraded\""),
                    ready.body());
            for (int i = 0; i < 6; i++) {
                assertEquals(200, service.get("/api/products").statusCode(), "the fail mode (local) decides");
            }
            admin.call("CONFIG", "SET", "stop-writes-on-bgsave-error", "no");
            eventually(Duration.ofSeconds(30), () -> service.get("/q/health/ready").body(), b -> !b.contains("refuses writes"),
                    "readiness healing");
            String log = eventually(Duration.ofSeconds(10), service::log,
                    l -> l.contains("cannot save its snapshot (MISCONF): fix its disk"), "the line naming the cause");
            assertEquals(1, log.lines().filter(l -> l.contains("cannot save its snapshot (MISCONF): fix its disk")).count(),
                    "one line names the cause and the fix:\n" + log);
        } finally {
            dev.slidegate.testing.Leftovers.delete(dir);
        }
    }
}
