package dev.slidegate.http;

import java.util.function.Supplier;
import java.util.logging.Filter;
import java.util.logging.Handler;
import java.util.logging.LogRecord;

import jakarta.annotation.Priority;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;

import dev.slidegate.config.SlidegateConfig;
import io.quarkus.runtime.StartupEvent;

/**
 * Keeps credentials in URIs out of the log ({@link RedactingLogFilter}): in Slidegate's own lines always, in every
 * line of the service only with {@code slidegate.log.redact=all}. Put in front of the root handlers' filters at
 * start-up, through the logging API: a filter the service set (on a handler, or {@code quarkus.log.console.filter})
 * stays in force and sees the redacted line; none of the service's settings is touched.
 */
@Singleton
class LogRedaction {

    void install(@Observes @Priority(1) StartupEvent start, SlidegateConfig config) {
        install(config.log().redact().trim().equals("all"));
    }

    /** Puts the redaction in front of every root handler's filter (replacing one this class put there before). */
    static synchronized void install(boolean everyLine) {
        for (Handler handler : java.util.logging.Logger.getLogger("").getHandlers()) {
            Filter host = handler.getFilter();
            while (host instanceof Supplier<?> earlier && earlier.get() instanceof Filter wrapped
                    && host.getClass().getName().equals(Scoped.class.getName())) {
                host = wrapped; // installed by an earlier start (a dev-mode reload): unwrapped, never stacked
            }
            handler.setFilter(new Scoped(everyLine, host));
        }
    }

    /** Redacts Slidegate's lines (or every line), then asks the filter that was there. */
    static final class Scoped implements Filter, Supplier<Filter> {
        private static final RedactingLogFilter REDACT = new RedactingLogFilter();
        private final boolean everyLine;
        private final Filter host;

        Scoped(boolean everyLine, Filter host) {
            this.everyLine = everyLine;
            this.host = host;
        }

        @Override
        public boolean isLoggable(LogRecord record) {
            String logger = record.getLoggerName();
            if (everyLine || (logger != null && logger.startsWith("dev.slidegate"))) {
                REDACT.isLoggable(record);
            }
            return host == null || host.isLoggable(record);
        }

        /** The filter that was there before. */
        @Override
        public Filter get() {
            return host;
        }
    }
}
