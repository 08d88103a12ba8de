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

import org.jboss.logging.Logger;

import dev.slidegate.api.Usage;
import dev.slidegate.config.PolicyRegistry;
import dev.slidegate.config.SlidegateConfig;
import dev.slidegate.core.AnswerUsage;
import dev.slidegate.engine.MethodPolicy;
import io.quarkus.arc.Arc;

/**
 * Reads the token usage an LLM provider's answer reports (issue 60) for a REST Client method whose policy says
 * {@code usage-from=answer}: the answer's bytes pass through {@link AnswerUsage} as the client reads them (nothing is
 * kept but what finding the usage needs), and what it reported is the usage of the request the call is made in, which
 * settles every policy of that request that settles (the client's, and an endpoint's that proxies the provider). An
 * answer that reports nothing leaves the usage as it was; a call made outside a request is not read (said at debug).
 * Returns at once for every other method: one property read and one map lookup.
 */
@Provider
@ConstrainedTo(RuntimeType.CLIENT)
public class AnswerUsages implements ReaderInterceptor {

    private static final Logger LOG = Logger.getLogger("dev.slidegate.upstream");

    private final MethodPolicies policies;
    private final PolicyRegistry registry;
    private final boolean enabled;
    /** Whether a REST client method's answers are read, by method. */
    private final Map<Method, Boolean> reads = new ConcurrentHashMap<>();

    AnswerUsages(MethodPolicies policies, PolicyRegistry registry, SlidegateConfig config) {
        this.policies = policies;
        this.registry = registry;
        this.enabled = config.enabled();
    }

    @Override
    public Object aroundReadFrom(ReaderInterceptorContext context) throws IOException {
        if (!enabled || !(invoked(context) instanceof Method method) || !reads.computeIfAbsent(method, this::readsAnswer)) {
            return context.proceed();
        }
        MediaType type = context.getMediaType();
        AnswerUsage usage = AnswerUsage.of(type != null && type.isCompatible(MediaType.SERVER_SENT_EVENTS_TYPE)
                ? AnswerUsage.Framing.SSE
                : AnswerUsage.Framing.JSON);
        context.setInputStream(new Read(context.getInputStream(), usage));
        try {
            return context.proceed();
        } finally {
            report(method, usage.tokens());
        }
    }

    /**
     * The REST Client method whose answer is read, or {@code null}: the events of a stream of server-sent events are read
     * with a context that has no properties at all (Quarkus REST Client 3.34), so such a stream is not read yet.
     */
    private static Object invoked(ReaderInterceptorContext context) {
        try {
            return context.getProperty(UpstreamResponses.INVOKED_METHOD);
        } catch (RuntimeException e) {
            return null;
        }
    }

    private boolean readsAnswer(Method method) {
        java.util.List<MethodPolicy> paced = policies.outgoing(method);
        return paced != null && paced.stream().anyMatch(mp -> mp.settlement().settles()
                && registry.usageFromAnswer(mp.name()));
    }

    private static void report(Method method, AnswerUsage.Tokens tokens) {
        if (tokens == null) {
            return; // nothing reported: the estimate stands (or what the code reported)
        }
        if (Arc.container() == null || !Arc.container().requestContext().isActive()) {
            LOG.debugf("%s: the answer reported %d tokens, but the call was made outside a request: not reported", method,
                    tokens.charged());
            return;
        }
        Arc.container().instance(Usage.class).get().report(tokens.charged());
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
