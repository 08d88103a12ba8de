package dev.slidegate.http;

import dev.slidegate.core.Secrets;
import io.quarkus.logging.LoggingFilter;
import java.util.logging.Filter;
import java.util.logging.LogRecord;

/**
 * Keeps credentials out of every log line of the console handler, whoever logs it (Slidegate, Quarkus,
 * the Vert.x Redis client): the user-info part of any URI in the message, its parameters or the
 * exception message is replaced by {@code ***}, so {@code redis://:secret@host} is printed as
 * {@code redis://***@host}. Installed by {@code quarkus.log.console.filter=slidegate-redact}.
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
        if (thrown != null && thrown.getMessage() != null && thrown.getMessage().contains("@")) {
            RuntimeException safe = new RuntimeException(thrown.getClass().getName() + ": " + Secrets.redact(thrown.getMessage()));
            safe.setStackTrace(thrown.getStackTrace());
            record.setThrown(safe);
        }
        return true;
    }
}
