package dev.slidegate.interceptor;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.literal.NamedLiteral;
import jakarta.inject.Inject;

import org.jboss.logging.Logger;

import dev.slidegate.api.KeyResolver;
import dev.slidegate.api.PlanResolver;
import dev.slidegate.api.RateLimitKey;
import dev.slidegate.api.RateLimited;
import dev.slidegate.config.KeySource;
import dev.slidegate.config.PolicyRegistry;
import io.quarkus.runtime.configuration.ConfigurationException;
import io.smallrye.mutiny.Multi;

/** Resolves and caches the {@link MethodPolicy} of each {@link RateLimited} method: once per method, never per call. */
@ApplicationScoped
public class MethodPolicies {

    private static final Logger LOG = Logger.getLogger("dev.slidegate");

    /** The arguments of a call decided from its HTTP request alone. */
    static final Object[] NO_ARGUMENTS = new Object[0];

    private final PolicyRegistry registry;
    private final Function<String, KeyResolver> resolvers;
    private final PlanResolver plans;
    private final Map<Method, List<MethodPolicy>> cache = new ConcurrentHashMap<>();
    /** The same lists by class, name and parameter types, for the REST layer, which names its methods so. */
    private final Map<Signature, List<MethodPolicy>> bySignature = new ConcurrentHashMap<>();

    /** A method as the REST layer describes its endpoints, without a {@link Method} object. */
    private record Signature(Class<?> type, String name, List<Class<?>> parameters) {

        static Signature of(Method m) {
            return new Signature(m.getDeclaringClass(), m.getName(), List.of(m.getParameterTypes()));
        }
    }

    /** What the request filter does for one REST endpoint: its policies, or {@code null} to leave it to the interceptor. */
    private record Endpoint(Class<?>[] parameters, List<MethodPolicy> early, int knownWhenLooked) {
    }

    /**
     * By resource class and method name, then parameter types: the REST layer's own description, looked up without allocating.
     */
    private final Map<Class<?>, Map<String, List<Endpoint>>> endpoints = new ConcurrentHashMap<>();

    @Inject
    MethodPolicies(PolicyRegistry registry, @Any Instance<KeyResolver> resolvers, PlanResolver plans) {
        this(registry, name -> {
            Instance<KeyResolver> named = resolvers.select(NamedLiteral.of(name));
            return named.isResolvable() ? named.get() : null;
        }, plans);
    }

    /** For tests: {@code resolvers} finds a {@link KeyResolver} by bean name, or answers {@code null}. */
    MethodPolicies(PolicyRegistry registry, Function<String, KeyResolver> resolvers, PlanResolver plans) {
        this.registry = registry;
        this.resolvers = resolvers;
        this.plans = plans;
    }

    /** The policies of {@code method} if they were resolved before, else {@code null}. */
    List<MethodPolicy> cached(Method method) {
        return cache.get(method);
    }

    /** The policies of {@code method}, whose effective bindings are {@code bindings}, in order. */
    List<MethodPolicy> of(Method method, List<RateLimited> bindings) {
        List<MethodPolicy> known = cache.get(method);
        if (known != null) {
            return known;
        }
        List<MethodPolicy> resolved = cache.computeIfAbsent(method, m -> resolveAll(m, bindings));
        bySignature.putIfAbsent(Signature.of(method), resolved);
        return resolved;
    }

    /**
     * The policies of the REST endpoint {@code type.name(parameters)} if every one of them can be
     * decided from the HTTP request alone ({@link MethodPolicy#fromRequestAlone}), else {@code null}:
     * the interceptor decides it. An endpoint not known yet (a class start-up could not inspect) is
     * looked up again once more methods are known.
     */
    List<MethodPolicy> decidedEarly(Class<?> type, String name, Class<?>[] parameters) {
        List<Endpoint> overloads = endpoints.computeIfAbsent(type, c -> new ConcurrentHashMap<>()).getOrDefault(name,
                List.of());
        for (Endpoint e : overloads) {
            if (Arrays.equals(e.parameters(), parameters)) {
                return e.early() != null || e.knownWhenLooked() == bySignature.size() ? e.early()
                        : lookUp(type, name, parameters);
            }
        }
        return lookUp(type, name, parameters);
    }

    private List<MethodPolicy> lookUp(Class<?> type, String name, Class<?>[] parameters) {
        int known = bySignature.size();
        List<MethodPolicy> policies = bySignature.get(new Signature(type, name, List.of(parameters)));
        Endpoint found = new Endpoint(parameters.clone(),
                policies != null && policies.stream().allMatch(mp -> mp.fromRequestAlone(plans)) ? policies : null, known);
        endpoints.get(type).compute(name, (n, overloads) -> {
            List<Endpoint> updated = new ArrayList<>();
            if (overloads != null) {
                overloads.stream().filter(e -> !Arrays.equals(e.parameters(), parameters)).forEach(updated::add);
            }
            updated.add(found);
            return List.copyOf(updated);
        });
        return found.early();
    }

    /**
     * The policy attached by configuration to requests matching {@code pattern}: as for an
     * annotation without members, so the policy's configuration and the defaults decide everything.
     */
    MethodPolicy attached(String policy, String pattern) {
        String where = "slidegate.policies." + policy + ".paths";
        PolicyRegistry.Resolved r = registry.resolve(new PolicyRegistry.Declared(policy, List.of(), "", ""), where);
        return new MethodPolicy(null, where, r.name(), r.policy(), r.key(), r.plans(), -1, MethodPolicy.Kind.PLAIN, r.cost(),
                pattern,
                resolversOf(r, where));
    }

    /** The policy of {@code method} with a single binding. */
    MethodPolicy of(Method method, RateLimited binding) {
        return of(method, List.of(binding)).get(0);
    }

    private List<MethodPolicy> resolveAll(Method m, List<RateLimited> bindings) {
        List<MethodPolicy> resolved = bindings.stream().map(b -> resolve(m, b)).toList();
        long distinct = resolved.stream().map(mp -> mp.policy().name()).distinct().count();
        if (distinct < resolved.size()) {
            throw namedTwice(resolved.get(0).where());
        }
        return resolved;
    }

    private static ConfigurationException namedTwice(String where) {
        return new ConfigurationException("Invalid Slidegate configuration: " + where
                + " names the same policy in two @RateLimited annotations: keep one");
    }

    /** The policy a {@code @RateLimited} names: its value, or {@code SimpleClassName.method} when it names none. */
    private static String policyName(String value, String simpleClassName, String methodName) {
        return value.isBlank() ? simpleClassName + "." + methodName : value.trim();
    }

    private MethodPolicy resolve(Method m, RateLimited ann) {
        String where = m.getDeclaringClass().getSimpleName() + "#" + m.getName();
        String name = policyName(ann.value(), m.getDeclaringClass().getSimpleName(), m.getName());
        PolicyRegistry.Declared declared = new PolicyRegistry.Declared(name, List.of(ann.limits()), ann.strategy(), ann.key(),
                ann.countRejected().value(), ann.dryRun().value(), ann.cost());
        PolicyRegistry.Resolved r = registry.resolve(declared, where);
        int cost = r.cost();
        warnIfNeverGranted(r, where);
        checkShape(where, MethodShape.keyParameterCount(m), m.getGenericReturnType().getTypeName());
        return new MethodPolicy(m, where, r.name(), r.policy(), r.key(), r.plans(), MethodShape.keyParameter(m),
                MethodShape.kind(m),
                cost,
                MethodShape.route(m, where),
                resolversOf(r, where));
    }

    private static void warnIfNeverGranted(PolicyRegistry.Resolved r, String where) {
        int cost = r.cost();
        r.policy().limits().stream().filter(l -> l.permits() < cost).findFirst().ifPresent(l -> LOG.warnf(
                "%s costs %d permits, more than limit %s of policy '%s' ever grants: every call will be refused", where, cost,
                l, r.policy().name()));
    }

    /**
     * Checks every {@code @RateLimited} found while the application was built, each as {@link #check} does,
     * and that no method names one policy twice.
     *
     * @return the number of methods checked
     * @throws ConfigurationException for the first invalid one
     */
    int checkAll(List<RateLimitedSites.Sites.Site> sites) {
        Map<String, java.util.Set<String>> policiesOf = new java.util.LinkedHashMap<>();
        for (RateLimitedSites.Sites.Site site : sites) {
            if (!policiesOf.computeIfAbsent(site.signature(), w -> new java.util.HashSet<>()).add(check(site))) {
                throw namedTwice(site.where());
            }
        }
        return policiesOf.size();
    }

    /**
     * Checks a {@code @RateLimited} found while the application was built ({@link RateLimitedSites}) as
     * resolving its method would, without the method itself: the policy and its limits, strategy and key
     * source, the cost, one {@code @RateLimitKey} at most, and a return type other than {@code Multi}.
     * What it cannot see (the route of an endpoint) is resolved at the first call, as before.
     *
     * @return the name of the policy it resolved to
     * @throws ConfigurationException naming the setting or {@code Class#method}, as start-up reports it
     */
    String check(RateLimitedSites.Sites.Site site) {
        String where = site.where();
        String name = policyName(site.value(), site.className(), site.methodName());
        PolicyRegistry.Declared declared = new PolicyRegistry.Declared(name, site.limits(), site.strategy(), site.key(),
                site.countRejected().value(), site.dryRun().value(), site.cost());
        PolicyRegistry.Resolved r = registry.resolve(declared, where);
        warnIfNeverGranted(r, where);
        checkShape(where, site.keyParameters(), site.returnType());
        resolversOf(r, where);
        return r.policy().name();
    }

    /**
     * The rules on a rate-limited method's shape, the same whether the build found it ({@link #check}) or a call meets
     * it ({@link #of}): one {@code @RateLimitKey} at most, and a return type other than {@code Multi}.
     *
     * @param returnType the return type's name with its arguments, e.g. {@code io.smallrye.mutiny.Multi<java.lang.String>}
     */
    private static void checkShape(String where, int keyParameters, String returnType) {
        if (keyParameters > 1) {
            throw new ConfigurationException("Invalid Slidegate configuration: " + where
                    + " has more than one @RateLimitKey parameter: keep one");
        }
        if (returnType.startsWith(Multi.class.getName())) {
            throw new ConfigurationException("Invalid Slidegate configuration: " + where
                    + " returns Multi, which @RateLimited does not support: limit the method that creates the stream, or return Uni");
        }
    }

    private Map<String, KeyResolver> resolversOf(PolicyRegistry.Resolved r, String where) {
        List<KeySource> parts = r.key() instanceof KeySource.Composite c ? c.parts() : List.of(r.key());
        Map<String, KeyResolver> found = new HashMap<>();
        for (KeySource part : parts) {
            if (part instanceof KeySource.Named n) {
                KeyResolver resolver = resolvers.apply(n.name());
                if (resolver == null) {
                    throw new ConfigurationException(
                            "Invalid Slidegate configuration: " + where + ": policy '" + r.policy().name()
                                    + "' keys callers by '" + r.key().spec() + "', but there is no @Named(\"" + n.name()
                                    + "\") KeyResolver bean (slidegate.policies." + r.policy().name()
                                    + ".key or @RateLimited(key)); expected "
                                    + KeySource.EXPECTED);
                }
                found.put(n.name(), resolver);
            }
        }
        return Map.copyOf(found);
    }
}
