package dev.slidegate.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * The records one logger (and its children) publishes while this is open: {@code try (LogCapture log =
 * LogCapture.of("dev.slidegate")) {...}}.
 */
public final class LogCapture extends Handler implements AutoCloseable {

    private final Logger logger;
    private final List<LogRecord> records = new ArrayList<>();

    private LogCapture(Logger logger) {
        this.logger = logger;
    }

    public static LogCapture of(String category) {
        Logger logger = Logger.getLogger(category);
        LogCapture capture = new LogCapture(logger);
        logger.addHandler(capture);
        return capture;
    }

    /** A copy of the records so far. */
    public synchronized List<LogRecord> records() {
        return List.copyOf(records);
    }

    /** Each record as "LEVEL message", its {@code %d}/{@code %s} parameters filled in. */
    public List<String> lines() {
        return records().stream().map(r -> r.getLevel() + " " + message(r)).toList();
    }

    /** The record's message with its printf-style parameters filled in. */
    public static String message(LogRecord r) {
        return r.getParameters() == null ? r.getMessage()
                : String.format(r.getMessage().replace("%d", "%s"), r.getParameters());
    }

    /** Whether any record is at {@code level} or above. */
    public boolean anyAtLeast(Level level) {
        return records().stream().anyMatch(r -> r.getLevel().intValue() >= level.intValue());
    }

    @Override
    public synchronized void publish(LogRecord r) {
        records.add(r);
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
        logger.removeHandler(this);
    }
}
