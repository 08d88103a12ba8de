package dev.slidegate.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Filter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Slidegate's own log lines are redacted in any service; the service's lines only when it asks; a filter the service
 * set stays in force, sees the line after redaction, and is never stacked under copies of Slidegate's.
 */
class LogRedactionTest {

    private static final String SECRET = "redis://:s3cret@cache.internal:6379";

    private final List<String> published = new ArrayList<>();
    private final List<String> seenByHost = new ArrayList<>();
    private final Filter host = r -> {
        seenByHost.add(r.getMessage());
        return !r.getMessage().contains("drop me");
    };
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord record) {
            if (isLoggable(record)) {
                published.add(record.getMessage());
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private Handler[] before;

    @BeforeEach
    void onlyOurHandler() {
        Logger root = Logger.getLogger("");
        before = root.getHandlers();
        for (Handler h : before) {
            root.removeHandler(h);
        }
        handler.setFilter(host);
        root.addHandler(handler);
    }

    @AfterEach
    void restore() {
        Logger root = Logger.getLogger("");
        root.removeHandler(handler);
        for (Handler h : before) {
            root.addHandler(h);
        }
    }

    private static LogRecord line(String logger, String message) {
        LogRecord r = new LogRecord(Level.INFO, message);
        r.setLoggerName(logger);
        return r;
    }

    @Test
    void slidegatesOwnLinesOnlyByDefault() {
        LogRedaction.install(false);
        handler.publish(line("dev.slidegate", "Redis (" + SECRET + ") does not answer"));
        handler.publish(line("example.host", "connecting to " + SECRET));
        assertEquals(List.of("Redis (redis://***@cache.internal:6379) does not answer", "connecting to " + SECRET), published);
        assertEquals(published, seenByHost, "the service's filter saw every line, after redaction");
    }

    @Test
    void everyLineWhenTheServiceAsks() {
        LogRedaction.install(true);
        handler.publish(line("io.vertx.redis.client", "connecting to " + SECRET));
        handler.publish(line("example.host", "drop me " + SECRET));
        assertEquals(List.of("connecting to redis://***@cache.internal:6379"), published);
        assertTrue(seenByHost.get(1).startsWith("drop me redis://***@"), "the service's filter still decides: " + seenByHost);
    }

    @Test
    void installedAgainItReplacesItselfAndKeepsTheServicesFilter() {
        LogRedaction.install(false);
        LogRedaction.install(true);
        LogRedaction.install(false);
        Filter installed = handler.getFilter();
        assertTrue(installed instanceof LogRedaction.Scoped);
        assertSame(host, ((LogRedaction.Scoped) installed).get(), "one layer of Slidegate's, then the service's own");
        handler.publish(line("example.host", "connecting to " + SECRET));
        assertFalse(published.get(0).contains("***"), "the last install (Slidegate's lines only) is the one in force");
    }
}
