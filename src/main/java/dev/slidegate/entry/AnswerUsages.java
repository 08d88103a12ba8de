package dev.slidegate.entry;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

import jakarta.ws.rs.ConstrainedTo;
import jakarta.ws.rs.RuntimeType;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.ext.Provider;
import jakarta.ws.rs.ext.ReaderInterceptor;
import jakarta.ws.rs.ext.ReaderInterceptorContext;

import dev.slidegate.api.Usage;
import dev.slidegate.config.SlidegateConfig;
import dev.slidegate.core.AnswerUsage;

/**
 * Reads the token usage an LLM provider's answer reports (issue 60) for a REST Client call whose request carries the
 * usage to add it to ({@link RestClients#USAGE}, put there by {@link UpstreamRequests}): a call whose own policy says
 * {@code usage-from=answer}, or any call made for a request whose policies read answers (a library's own client, such as
 * an LLM framework's). The answer's bytes pass through {@link AnswerUsage} as the client reads them (nothing is kept but
 * what finding the usage needs), and what it reported is added to that usage ({@link UsageReports.AnswerTally}): during
 * a request, the request's, which settles every policy of that request that settles (a request that calls the provider
 * several times is charged them all); outside one, the call's own. An answer that reports nothing adds nothing. A stream
 * of server-sent events is read as its items pass, for a paced call ({@link UsageReports}). Returns at once for every
 * other call: one property read.
 */
@Provider
@ConstrainedTo(RuntimeType.CLIENT)
public class AnswerUsages implements ReaderInterceptor {

    private final boolean enabled;

    AnswerUsages(SlidegateConfig config) {
        this.enabled = config.enabled();
    }

    @Override
    public Object aroundReadFrom(ReaderInterceptorContext context) throws IOException {
        if (!enabled || !(usageOf(context) instanceof Usage usage)) {
            return context.proceed();
        }
        MediaType type = context.getMediaType();
        if (type != null && type.isCompatible(MediaType.SERVER_SENT_EVENTS_TYPE)) {
            return context.proceed(); // a stream of events: its items are read as the call's stream passes (UsageReports)
        }
        AnswerUsage answer = AnswerUsage.of(AnswerUsage.Framing.JSON);
        context.setInputStream(new Read(context.getInputStream(), answer));
        try {
            return context.proceed();
        } finally {
            new UsageReports.AnswerTally(true).add(answer.tokens(), usage);
        }
    }

    /**
     * The usage the call's answer is added to, or {@code null}: the events of a stream of server-sent events are read
     * with a context that has no properties at all (Quarkus REST Client 3.34).
     */
    private static Object usageOf(ReaderInterceptorContext context) {
        try {
            return context.getProperty(RestClients.USAGE);
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** The answer as the client reads it, each byte passed to the reader of its usage too. */
    private static final class Read extends FilterInputStream {
        private final AnswerUsage usage;

        Read(InputStream in, AnswerUsage usage) {
            super(in);
            this.usage = usage;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                usage.feed((byte) b);
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n > 0) {
                usage.feed(b, off, n);
            }
            return n;
        }
    }
}
