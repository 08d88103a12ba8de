package dev.slidegate.entry;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.slidegate.engine.MethodPolicy;

/**
 * What Slidegate knows of the REST clients whose calls it paces: Quarkus makes a CDI bean of each
 * {@code @RegisterRestClient} interface (a class named after it with {@value #WRAPPER_SUFFIX}), carrying the interface's
 * interceptor bindings, so {@code @RateLimited} on the interface reaches the {@link RateLimitInterceptor} through it.
 * The response comes back through the REST client's filters, which name the interface's method: this finds the
 * policies the interceptor decided that method's calls under.
 */
final class RestClients {

    /** What Quarkus appends to a REST Client interface's name for its CDI bean. */
    static final String WRAPPER_SUFFIX = "$$CDIWrapper";
    /** The annotation that makes an interface a REST client (MicroProfile REST Client). */
    static final String REGISTER = "org.eclipse.microprofile.rest.client.inject.RegisterRestClient";

    /** The request property a REST client call carries its arguments in, from the interceptor to the response. */
    static final String ARGUMENTS = "dev.slidegate.arguments";
    /** The request property a REST client call carries its {@link dev.slidegate.api.Usage} in, to its answer's reader. */
    static final String USAGE = "dev.slidegate.usage";
    /**
     * The outgoing call the interceptor is letting through on this thread: the REST client runs its request filters
     * ({@link UpstreamRequests}) before it sends, on the thread that makes (or subscribes to) the call.
     */
    static final ThreadLocal<Calling> CALLING = new ThreadLocal<>();

    /**
     * An outgoing call being made: its arguments, and the usage it reports to when it settles ({@code null} when it does
     * not), where {@link AnswerUsages} reports what its answer said.
     */
    record Calling(Object[] args, dev.slidegate.api.Usage usage) {
    }

    private final Map<String, List<MethodPolicy>> byInterfaceMethod = new ConcurrentHashMap<>();
    /**
     * What {@link #of} answered per interface method ({@link #NONE} for none), so that a response of any REST client
     * costs one lookup, not a name built; forgotten whenever a method is remembered (once per method).
     */
    private final Map<Method, List<MethodPolicy>> answered = new ConcurrentHashMap<>();
    private static final List<MethodPolicy> NONE = List.of();

    /** Whether {@code type} is the CDI bean of a REST Client interface. */
    static boolean isWrapper(Class<?> type) {
        return type.getName().endsWith(WRAPPER_SUFFIX);
    }

    /** {@code ShopClient} of {@code ShopClient$$CDIWrapper}, else the class's own simple name. */
    static String simpleName(Class<?> type) {
        String n = type.getSimpleName();
        return n.endsWith(WRAPPER_SUFFIX) ? n.substring(0, n.length() - WRAPPER_SUFFIX.length()) : n;
    }

    /** Remembers the policies of an outgoing method, by the interface method it implements. */
    void remember(Method wrapperMethod, List<MethodPolicy> policies) {
        if (byInterfaceMethod.putIfAbsent(id(interfaceName(wrapperMethod.getDeclaringClass()), wrapperMethod),
                policies) == null) {
            answered.clear(); // a method answered "none" before (a client not made by CDI) may be paced now
        }
    }

    /** The policies of the REST Client interface method {@code m}, or {@code null} when none paces it. */
    List<MethodPolicy> of(Method m) {
        List<MethodPolicy> known = answered.get(m);
        if (known == null) {
            known = byInterfaceMethod.getOrDefault(id(m.getDeclaringClass().getName(), m), NONE);
            answered.put(m, known);
        }
        return known == NONE ? null : known;
    }

    private static String interfaceName(Class<?> wrapper) {
        String n = wrapper.getName();
        return n.substring(0, n.length() - WRAPPER_SUFFIX.length());
    }

    private static String id(String typeName, Method m) {
        StringBuilder b = new StringBuilder(typeName).append('#').append(m.getName()).append('(');
        for (Class<?> p : m.getParameterTypes()) {
            b.append(p.getName()).append(',');
        }
        return b.append(')').toString();
    }
}
