package dev.slidegate.interceptor;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.BeanManager;

import org.jboss.logging.Logger;

import dev.slidegate.api.PlanResolver;
import dev.slidegate.api.RateLimited;
import dev.slidegate.config.PolicyRegistry;
import dev.slidegate.core.DecisionStore;
import dev.slidegate.http.ClientAddress;
import io.quarkus.runtime.StartupEvent;

/**
 * At start-up, checks the policy of every {@link RateLimited} method of every bean, as the build found
 * them ({@link RateLimitedSites}), so that a bad limit, strategy, key source or policy name stops the
 * service before it takes traffic, with one sentence naming the property or {@code Class#method}, on
 * the JVM and in a native executable alike, without reflection. It also creates the store (which logs which
 * store is active and why) and the client-address resolver (which checks the trusted proxies).
 */
class StartupCheck {

    private static final Logger LOG = Logger.getLogger("dev.slidegate");

    void onStart(@Observes StartupEvent event, BeanManager beans, MethodPolicies policies, PolicyRegistry registry,
            DecisionStore store, ClientAddress clientAddress, PlanResolver plans, PathLimiter pathLimiter,
            jakarta.enterprise.inject.Instance<RateLimitedSites.Sites> sites) {
        int methods;
        if (sites.isResolvable()) {
            // what the build found: no reflection over the beans' methods, which cost a quarter of a second of
            // the JVM's start-up, and which a native executable can do only for registered classes
            methods = policies.checkAll(sites.get().all());
        } else { // an application built without the build-time extension (never with Quarkus)
            methods = 0;
            Set<Class<?>> seen = new HashSet<>();
            for (Bean<?> bean : beans.getBeans(Object.class, Any.Literal.INSTANCE)) {
                Class<?> type = bean.getBeanClass();
                if (type != null && seen.add(type)) {
                    methods += check(type, policies);
                }
            }
        }
        registry.checkConfiguredPoliciesComplete();
        registry.checkNamesMatch().forEach(w -> LOG.warn("Slidegate: " + w));
        LOG.debugf("Slidegate: %d rate-limited methods, policies %s, store %s", methods, registry.policies().keySet(),
                store.name());
    }

    static int check(Class<?> type, MethodPolicies policies) {
        int count = 0;
        RateLimited[] onClass = type.getAnnotationsByType(RateLimited.class);
        Method[] declared;
        try {
            declared = type.getDeclaredMethods();
        } catch (LinkageError e) {
            // a signature names a class that is missing (an optional dependency of a bean), or, in a
            // native image, a class not registered for reflection: nothing else is expected here, and
            // anything else is a real failure that must stop the start-up
            String why = type.getName() + ": its methods cannot be listed (" + e
                    + "), so their @RateLimited policies are checked at"
                    + " their first call instead of at start-up";
            if (onClass.length > 0) {
                LOG.warn("Slidegate: " + why);
            } else {
                LOG.debug(why);
            }
            return 0;
        }
        for (Method m : declared) {
            RateLimited[] bindings = m.getAnnotationsByType(RateLimited.class);
            if (bindings.length == 0 && onClass.length > 0 && isBusinessMethod(m)) {
                bindings = onClass;
            }
            if (bindings.length > 0) {
                policies.of(m, List.of(bindings));
                count++;
            }
        }
        return count;
    }

    private static boolean isBusinessMethod(Method m) {
        int mod = m.getModifiers();
        return !m.isSynthetic() && !Modifier.isStatic(mod) && !Modifier.isPrivate(mod);
    }
}
