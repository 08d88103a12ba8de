package dev.slidegate.entry;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.concurrent.CompletionStage;
import java.util.regex.Pattern;

import jakarta.ws.rs.Path;

import dev.slidegate.api.RateLimitKey;
import dev.slidegate.engine.MethodPolicy;
import io.smallrye.mutiny.Uni;

/** What a rate-limited method's declaration says: its route, its {@code @RateLimitKey} parameter, how it returns. */
final class MethodShape {

    private MethodShape() {
    }

    /**
     * The JAX-RS route template of a resource method, e.g. {@code /api/products/:id} (path
     * parameters as {@code :name}, without their regular expressions); {@code Class.method} for a
     * method that is not a resource method.
     */
    static String route(Method m, String where) {
        Path onClass = m.getDeclaringClass().getAnnotation(Path.class);
        Path onMethod = m.getAnnotation(Path.class);
        if (onClass == null && onMethod == null) {
            return where.replace('#', '.');
        }
        String raw = "/" + (onClass == null ? "" : onClass.value()) + "/" + (onMethod == null ? "" : onMethod.value());
        String route = PARAMETER.matcher(raw).replaceAll(":$1").replaceAll("/+", "/");
        return route.length() > 1 && route.endsWith("/") ? route.substring(0, route.length() - 1) : route;
    }

    private static final Pattern PARAMETER = Pattern.compile("\\{\\s*([A-Za-z0-9_.-]+)\\s*(?::[^}]*)?}");

    static int keyParameter(Method m) {
        Annotation[][] annotations = m.getParameterAnnotations();
        for (int i = 0; i < annotations.length; i++) {
            for (Annotation a : annotations[i]) {
                if (a instanceof RateLimitKey) {
                    return i;
                }
            }
        }
        return -1;
    }

    /**
     * The index of the {@link dev.slidegate.api.RateLimitCost} parameter, or -1.
     *
     * @throws IllegalArgumentException for more than one, or one that is no whole number
     */
    static int costParameter(Method m, String where) {
        Annotation[][] annotations = m.getParameterAnnotations();
        int found = -1;
        for (int i = 0; i < annotations.length; i++) {
            for (Annotation a : annotations[i]) {
                if (a instanceof dev.slidegate.api.RateLimitCost) {
                    if (found >= 0) {
                        throw new IllegalArgumentException(where + ": two @RateLimitCost parameters: mark the one that "
                                + "gives the call's cost");
                    }
                    Class<?> t = m.getParameterTypes()[i];
                    if (!(t == int.class || t == long.class || t == short.class || t == Integer.class || t == Long.class
                            || t == Short.class)) {
                        throw new IllegalArgumentException(where + ": @RateLimitCost marks a parameter of type "
                                + t.getSimpleName() + ": the cost is a whole number (int, long, short or their boxes)");
                    }
                    found = i;
                }
            }
        }
        return found;
    }

    static int keyParameterCount(Method m) {
        int count = 0;
        for (Annotation[] onParameter : m.getParameterAnnotations()) {
            for (Annotation a : onParameter) {
                count += a instanceof RateLimitKey ? 1 : 0;
            }
        }
        return count;
    }

    /** How the method returns. */
    static MethodPolicy.Kind kind(Method m) {
        Class<?> type = m.getReturnType();
        if (Uni.class.isAssignableFrom(type)) {
            return MethodPolicy.Kind.UNI;
        }
        if (CompletionStage.class.isAssignableFrom(type)) {
            return MethodPolicy.Kind.STAGE;
        }
        if (io.smallrye.mutiny.Multi.class.isAssignableFrom(type)) {
            return MethodPolicy.Kind.MULTI;
        }
        return MethodPolicy.Kind.PLAIN;
    }
}
