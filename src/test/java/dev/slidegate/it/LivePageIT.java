package dev.slidegate.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

import org.junit.jupiter.api.Test;

import dev.slidegate.testing.AdminCredentials;
import dev.slidegate.testing.Eventually;
import dev.slidegate.testing.RedisServer;

/**
 * The live page's event stream on Redis outlives a snapshot that takes longer than its one-second tick:
 * here Redis is frozen (SIGSTOP) for 3 s while a page is open. Before, the ticks that came while a
 * snapshot was computed overflowed the stream and ended it, so every open page went quiet for good
 * (the admin benchmark's 50 pages got 0 events in 10 s at 7 500 keys).
 */
class LivePageIT {

    @Test
    void theStreamGoesOnAfterASnapshotSlowerThanItsTick() throws Exception {
        try (RedisServer redis = RedisServer.start();
                ServiceProcess service = ServiceProcess.start("-Dslidegate.store=redis",
                        "-Dquarkus.redis.hosts=" + redis.uri())) {
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.port + "/admin/stream"))
                    .header("Authorization",
                            AdminCredentials.basicHeader())
                    .GET().build();
            HttpResponse<java.io.InputStream> r = ServiceProcess.HTTP.send(request, HttpResponse.BodyHandlers.ofInputStream());
            assertEquals(200, r.statusCode());
            BlockingQueue<String> lines = new LinkedBlockingQueue<>();
            Thread reader = new Thread(() -> {
                try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = in.readLine()) != null) {
                        lines.add(line);
                    }
                    lines.add("<end of stream>");
                } catch (java.io.IOException closed) {
                    lines.add("<closed: " + closed + ">");
                }
            });
            reader.setDaemon(true);
            reader.start();
            assertTrue(nextEvent(lines, 10).startsWith("data:"), "a first event");

            redis.signal("STOP");
            try {
                Thread.sleep(3000); // the scenario itself: a snapshot that takes three ticks of the stream, not a wait
            } finally {
                redis.signal("CONT");
            }
            lines.clear();
            for (int i = 0; i < 3; i++) {
                String event = nextEvent(lines, 10);
                assertTrue(event.startsWith("data:") && event.contains("\"products\""),
                        "event " + (i + 1) + " after Redis came back: " + event);
            }
            r.body().close();
        }
    }

    /** The next {@code data:} line, or what ended the stream, waiting at most {@code seconds}. */
    private static String nextEvent(BlockingQueue<String> lines, int seconds) {
        return Eventually.eventually(java.time.Duration.ofSeconds(seconds), () -> {
            String line;
            while ((line = lines.poll()) != null && !line.startsWith("data:") && !line.startsWith("<")) {
                // comments and blank lines between events
            }
            return line;
        }, line -> line != null, "the next event of the live stream");
    }
}
