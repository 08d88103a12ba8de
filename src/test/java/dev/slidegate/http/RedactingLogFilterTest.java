package dev.slidegate.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.logging.Level;
import java.util.logging.LogRecord;

import org.junit.jupiter.api.Test;

/** The log filter keeps credentials out of messages and exceptions, and keeps every cause. */
class RedactingLogFilterTest {

    private static String printed(Throwable t) {
        StringWriter out = new StringWriter();
        t.printStackTrace(new PrintWriter(out));
        return out.toString();
    }

    // a secret in the top exception: redacted, and the causes below it are still printed
    @Test
    void aSecretOnTopKeepsTheCauseChain() {
        Exception root = new java.net.ConnectException("Connection refused: /10.0.0.1:6379");
        Exception top = new IllegalStateException("cannot reach redis://:s3cret@10.0.0.1:6379",
                new RuntimeException("pool failed", root));
        LogRecord r = new LogRecord(Level.WARNING, "Redis is down");
        r.setThrown(top);
        assertTrue(new RedactingLogFilter().isLoggable(r));
        String text = printed(r.getThrown());
        assertFalse(text.contains("s3cret"), text);
        assertTrue(text.contains("java.lang.IllegalStateException: cannot reach redis://***@10.0.0.1:6379"), text);
        assertTrue(text.contains("Caused by: java.lang.RuntimeException: pool failed"), text);
        assertTrue(text.contains("Caused by: java.net.ConnectException: Connection refused"), text);
    }

    // a secret only in a cause: the cause is redacted too
    @Test
    void aSecretInACauseIsRedacted() {
        Exception top = new RuntimeException("decision failed",
                new IllegalArgumentException("bad uri rediss://user:pw@host:6380"));
        LogRecord r = new LogRecord(Level.WARNING, "x");
        r.setThrown(top);
        new RedactingLogFilter().isLoggable(r);
        String text = printed(r.getThrown());
        assertFalse(text.contains("user:pw"), text);
        assertTrue(text.contains("java.lang.RuntimeException: decision failed"), text);
        assertTrue(text.contains("Caused by: java.lang.IllegalArgumentException: bad uri rediss://***@host:6380"), text);
        assertEquals(top.getStackTrace()[0], r.getThrown().getStackTrace()[0], "where it was thrown is kept");
    }

    // nothing secret: the very same exception is logged
    @Test
    void nothingSecretIsLeftAlone() {
        Exception top = new RuntimeException("plain", new RuntimeException("cause"));
        LogRecord r = new LogRecord(Level.WARNING, "x");
        r.setThrown(top);
        new RedactingLogFilter().isLoggable(r);
        assertSame(top, r.getThrown());
    }
}
