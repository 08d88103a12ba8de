package dev.slidegate.entry;

import java.lang.reflect.Method;

import dev.slidegate.engine.Outcome;
import io.vertx.ext.web.RoutingContext;

/**
 * The request attribute by which the request filter tells the interceptor that it has decided the
 * call of one endpoint method on this request, so the interceptor lets that call through once
 * without charging it again (unless its thread took it up too late for its permit: {@link dev.slidegate.engine.Decider#late}).
 * Any other rate-limited method the endpoint calls is decided as usual.
 */
final class Decided {

    private static final String KEY = Decided.class.getName();

    private final Method method;
    private final Outcome.Admitted admitted;

    private Decided(Method method, Outcome.Admitted admitted) {
        this.method = method;
        this.admitted = admitted;
    }

    /** Marks the call of {@code endpoint} on {@code rc} as decided and {@code admitted}. */
    static void mark(RoutingContext rc, Method endpoint, Outcome.Admitted admitted) {
        rc.put(KEY, new Decided(endpoint, admitted));
    }

    /**
     * How the call of {@code method} on {@code rc} was admitted, or {@code null} when it was not decided yet; the mark is used
     * up.
     */
    static Outcome.Admitted take(RoutingContext rc, Method method) {
        if (rc != null && rc.get(KEY) instanceof Decided d && d.method.equals(method)) {
            rc.remove(KEY);
            return d.admitted;
        }
        return null;
    }
}
