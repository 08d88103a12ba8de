package dev.slidegate.interceptor;

import java.lang.reflect.Method;

import io.vertx.ext.web.RoutingContext;

/**
 * The request attribute by which the request filter tells the interceptor that it has decided the
 * call of one endpoint method on this request, so the interceptor lets that call through once
 * without charging it again. Any other rate-limited method the endpoint calls is decided as usual.
 */
final class Decided {

    private static final String KEY = Decided.class.getName();

    private final Method method;

    private Decided(Method method) {
        this.method = method;
    }

    /** Marks the call of {@code endpoint} on {@code rc} as decided and admitted. */
    static void mark(RoutingContext rc, Method endpoint) {
        rc.put(KEY, new Decided(endpoint));
    }

    /** Whether the call of {@code method} on {@code rc} was decided already; the mark is used up. */
    static boolean take(RoutingContext rc, Method method) {
        if (rc != null && rc.get(KEY) instanceof Decided d && d.method.equals(method)) {
            rc.remove(KEY);
            return true;
        }
        return false;
    }
}
