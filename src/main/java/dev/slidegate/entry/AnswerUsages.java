package dev.slidegate.entry;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

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
 * Reads the token usage an LLM provider's answer reports (issue 60) for a REST Client method whose policy says
 * {@code usage-from=answer}: the answer's bytes pass through {@link AnswerUsage} as the client reads them (nothing is
 * kept but what finding the usage needs), and what it reported is added to the call's usage ({@link RestClients#USAGE}):
 * during a request, the request's, which settles every policy of that request that settles (the client's, and an
 * endpoint's that proxies the provider: a request that calls the provider several times is charged them all); outside
 * one, the call's own. An answer that reports nothing leaves the usage as it was.
 * A stream of server-sent events is read as its items pass ({@link UsageReports}). Returns at once for every other
 * method: one property read and one map lookup.
 */
@Provider
@ConstrainedTo(RuntimeType.CLIENT)
public class AnswerUsages implements ReaderInterceptor {

    private final MethodPolicies policies;
    private final boolean enabled;
    /** Whether a REST client method's answers are read, by method. */
    private final Map<Method, Boolean> reads = new ConcurrentHashMap<>();

    AnswerUsages(MethodPolicies policies, SlidegateConfig config) {
        this.policies = policies;
        this.enabled = config.enabled();
    }

    @Override
    public Object aroundReadFrom(ReaderInterceptorContext context) throws IOException {
        if (!enabled || !(invoked(context) instanceof Method method) || !reads.computeIfAbsent(method, this::readsAnswer)
                || !(context.getProperty(RestClients.USAGE) instanceof Usage usage)) {
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
            // added to what the call's usage holds (a request's other calls); one that reports nothing adds nothing
            new UsageReports.AnswerTally(true).add(answer.tokens(), usage);
        }
    }

    /**
     * The REST Client method whose answer is read, or {@code null}: the events of a stream of server-sent events are read
     * with a context that has no properties at all (Quarkus REST Client 3.34); such a stream is read as its items pass.
     */
    private static Object invoked(ReaderInterceptorContext context) {
        try {
            return context.getProperty(UpstreamResponses.INVOKED_METHOD);
        } catch (RuntimeException e) {
            return null;
        }
    }

    private boolean readsAnswer(Method method) {
        java.util.List<dev.slidegate.engine.MethodPolicy> paced = policies.outgoing(method);
        return paced != null && UsageReports.fromAnswer(paced);
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
