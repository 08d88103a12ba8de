package dev.slidegate.interceptor;

import dev.slidegate.config.PolicyRegistry;
import io.quarkus.runtime.configuration.ConfigurationException;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/** Resolves and caches the {@link MethodPolicy} of each {@link RateLimited} method: once per method, never per call. */
@ApplicationScoped
public class MethodPolicies {

    private static final Logger LOG = Logger.getLogger("dev.slidegate");

    private final PolicyRegistry registry;
    private final Map<Method, MethodPolicy> cache = new ConcurrentHashMap<>();

    public MethodPolicies(PolicyRegistry registry) {
        this.registry = registry;
    }

    /** The policy of {@code method} if it was resolved before, else {@code null}. */
    MethodPolicy cached(Method method) {
        return cache.get(method);
    }

    /** The policy of {@code method}, whose effective binding is {@code binding}. */
    MethodPolicy of(Method method, RateLimited binding) {
        MethodPolicy known = cache.get(method);
        return known != null ? known : cache.computeIfAbsent(method, m -> resolve(m, binding));
    }

    private MethodPolicy resolve(Method m, RateLimited ann) {
        String where = m.getDeclaringClass().getSimpleName() + "#" + m.getName();
        String name = ann.value().isBlank() ? m.getDeclaringClass().getSimpleName() + "." + m.getName() : ann.value().trim();
        PolicyRegistry.Declared declared = new PolicyRegistry.Declared(name, List.of(ann.limits()), ann.strategy(), ann.key(),
                ann.countRejected(), ann.dryRun(), ann.cost());
        PolicyRegistry.Resolved r = registry.resolve(declared, where);
        int cost = registry.cost(declared, where);
        r.policy().limits().stream().filter(l -> l.permits() < cost).findFirst().ifPresent(l -> LOG.warnf(
                "%s costs %d permits, more than limit %s of policy '%s' ever grants: every call will be refused", where, cost, l,
                r.policy().name()));
        return new MethodPolicy(where, r.policy(), r.key(), keyParameter(m, where), kind(m, where), cost);
    }

    private static int keyParameter(Method m, String where) {
        int found = -1;
        Annotation[][] annotations = m.getParameterAnnotations();
        for (int i = 0; i < annotations.length; i++) {
            for (Annotation a : annotations[i]) {
                if (a instanceof RateLimitKey) {
                    if (found >= 0) {
                        throw new ConfigurationException("Invalid Slidegate configuration: " + where
                                + " has more than one @RateLimitKey parameter: keep one");
                    }
                    found = i;
                }
            }
        }
        return found;
    }

    private static MethodPolicy.Kind kind(Method m, String where) {
        Class<?> type = m.getReturnType();
        if (Uni.class.isAssignableFrom(type)) {
            return MethodPolicy.Kind.UNI;
        }
        if (CompletionStage.class.isAssignableFrom(type)) {
            return MethodPolicy.Kind.STAGE;
        }
        if (Multi.class.isAssignableFrom(type)) {
            throw new ConfigurationException("Invalid Slidegate configuration: " + where
                    + " returns Multi, which @RateLimited does not support: limit the method that creates the stream, or return Uni");
        }
        return MethodPolicy.Kind.PLAIN;
    }
}
