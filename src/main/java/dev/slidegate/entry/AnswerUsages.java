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
 * of server-sent events is read event by event as the client reads them, whatever type the code reads them as (text,
 * or a library's own classes): {@link Stream}. Returns at once for every other call: one property read.
 */
@Provider
@ConstrainedTo(RuntimeType.CLIENT)
public class AnswerUsages implements ReaderInterceptor, jakarta.ws.rs.client.ClientResponseFilter {

    private final boolean enabled;

    AnswerUsages(SlidegateConfig config) {
        this.enabled = config.enabled();
    }

    @Override
    public Object aroundReadFrom(ReaderInterceptorContext context) throws IOException {
        if (!enabled) {
            return context.proceed();
        }
        if (!(usageOf(context) instanceof Usage usage)) {
            Stream stream = streamed ? Stream.current() : null;
            return stream != null ? stream.read(context) : context.proceed();
        }
        MediaType type = context.getMediaType();
        if (type != null && type.isCompatible(MediaType.SERVER_SENT_EVENTS_TYPE)) {
            return context.proceed(); // a stream of events: its events are read one by one (Stream)
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
     * A response that is a stream of server-sent events, for a call whose answer is read: its events are read by this
     * interceptor, on the Vert.x context of the call, with a context without properties (Quarkus REST Client 3.34). The
     * call's {@link Stream} waits for them in that context's local data.
     */
    @Override
    public void filter(jakarta.ws.rs.client.ClientRequestContext request,
            jakarta.ws.rs.client.ClientResponseContext response) {
        if (!enabled || !(request.getProperty(RestClients.USAGE) instanceof Usage usage)) {
            return;
        }
        // (Quarkus REST Client 3.34 passes a response without headers for some calls that failed: no media type then)
        MediaType type = response.getHeaders() == null ? null : response.getMediaType();
        if (type != null && type.isCompatible(MediaType.SERVER_SENT_EVENTS_TYPE)
                && io.smallrye.common.vertx.VertxContext.isOnDuplicatedContext()) {
            streamed = true;
            io.smallrye.common.vertx.ContextLocals.put(Stream.KEY, new Stream(usage, io.vertx.core.Vertx.currentContext()));
        }
    }

    /** Whether any answer was a stream of events read by this: until one was, a read without properties costs this read. */
    private static volatile boolean streamed;

    /**
     * One call's stream of events: each event's data is one JSON document of the answer ({@link AnswerUsage#nextDocument}),
     * read as the client reads it, and what the answer said so far is added to the call's usage as it grows: a stream's
     * running totals (Anthropic's {@code message_start} then {@code message_delta}) count once.
     */
    private static final class Stream {
        static final String KEY = "dev.slidegate.answer-stream";
        private final Usage usage;
        /** The call's context: a call the code makes from it inherits its local data, and is not this stream. */
        private final io.vertx.core.Context context;
        private final AnswerUsage answer = AnswerUsage.of(AnswerUsage.Framing.JSON);
        private final UsageReports.AnswerTally tally = new UsageReports.AnswerTally(true);

        Stream(Usage usage, io.vertx.core.Context context) {
            this.usage = usage;
            this.context = context;
        }

        /** The stream whose events are read on this thread's Vert.x context, or {@code null}. */
        static Stream current() {
            io.vertx.core.Context ctx = io.vertx.core.Vertx.currentContext();
            if (ctx == null || !io.smallrye.common.vertx.VertxContext.isDuplicatedContext(ctx)) {
                return null;
            }
            return io.smallrye.common.vertx.ContextLocals.<Stream> get(KEY).filter(s -> s.context == ctx).orElse(null);
        }

        /** Reads the next event's data (the events of a call come one after another, on its context). */
        Object read(ReaderInterceptorContext event) throws IOException {
            answer.nextDocument();
            event.setInputStream(new Read(event.getInputStream(), answer));
            try {
                return event.proceed();
            } finally {
                tally.add(answer.tokens(), usage);
            }
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
