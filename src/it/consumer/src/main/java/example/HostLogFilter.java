package example;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Filter;
import java.util.logging.LogRecord;

import io.quarkus.logging.LoggingFilter;

/** The service's own console filter: keeps the messages of the service's own category, to show it still runs. */
@LoggingFilter(name = "host-filter")
public final class HostLogFilter implements Filter {

    public static final List<String> SEEN = new CopyOnWriteArrayList<>();

    @Override
    public boolean isLoggable(LogRecord record) {
        if ("example.host".equals(record.getLoggerName())) {
            SEEN.add(record.getMessage());
        }
        return true;
    }
}
