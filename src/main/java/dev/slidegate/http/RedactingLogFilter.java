package dev.slidegate.http;

import java.util.logging.Filter;
import java.util.logging.LogRecord;

import dev.slidegate.core.Secrets;
import io.quarkus.logging.LoggingFilter;

/**
 * Keeps credentials out of every log line of the console handler, whoever logs it (Slidegate, Quarkus,
 * the Vert.x Redis client): the user-info part of any URI in the message, its parameters or the
 * exception message is replaced by {@code ***}, so {@code redis://:secret@host} is printed as
 * {@code redis://***@host}. Put in front of the log handlers by {@link LogRedaction} (Slidegate's own lines, or
 * every line with {@code slidegate.log.redact=all}); a service may also name it on a handler of its own
 * ({@code quarkus.log.console.filter=slidegate-redact}).
 */
@LoggingFilter(name = "slidegate-redact")
public final class RedactingLogFilter implements Filter {

    @Override
    public boolean isLoggable(LogRecord record) {
        String message = record.getMessage();
        if (message != null && message.contains("@")) {
            record.setMessage(Secrets.redact(message));
        }
        Object[] params = record.getParameters();
        if (params != null) {
            for (int i = 0; i < params.length; i++) {
                if (params[i] instanceof String s && s.contains("@")) {
                    params[i] = Secrets.redact(s);
                } else if (params[i] instanceof Throwable t && t.getMessage() != null && t.getMessage().contains("@")) {
                    params[i] = Secrets.redact(t.toString());
                }
            }
        }
        Throwable thrown = record.getThrown();
        if (thrown != null) {
            Throwable safe = redacted(thrown, 0);
            if (safe != thrown) {
                record.setThrown(safe);
            }
        }
        return true;
    }

    /**
     * The throwable itself when no message in its cause chain holds a secret; otherwise a copy of the
     * chain, each link with its class name, redacted message and stack trace, so the log still shows
     * every cause (and where it was thrown) but no credential.
     */
    static Throwable redacted(Throwable t, int depth) {
        if (t == null || depth >= 32) {
            return null;
        }
        Throwable cause = t.getCause() == t ? null : t.getCause();
        Throwable safeCause = redacted(cause, depth + 1);
        boolean secret = t.getMessage() != null && t.getMessage().contains("@");
        if (!secret && safeCause == cause) {
            return t;
        }
        Redacted copy = new Redacted(
                t.getClass().getName() + (t.getMessage() == null ? "" : ": " + Secrets.redact(t.getMessage())), safeCause);
        copy.setStackTrace(t.getStackTrace());
        return copy;
    }

    /** A link of a redacted cause chain: prints as the original did, class name first. */
    static final class Redacted extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Redacted(String text, Throwable cause) {
            super(text, cause);
        }

        @Override
        public String toString() {
            return getMessage();
        }
    }
}
