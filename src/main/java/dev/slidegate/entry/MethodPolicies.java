package dev.slidegate.entry;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.enterprise.inject.literal.NamedLiteral;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;

import dev.slidegate.api.KeyResolver;
import dev.slidegate.api.PlanResolver;
import dev.slidegate.api.RateLimited;
import dev.slidegate.config.PolicyCatalog;
import dev.slidegate.config.PolicyRegistry;
import dev.slidegate.engine.MethodPolicy;
import dev.slidegate.rls.RlsPolicies;
import dev.slidegate.rls.RlsRules;
import dev.slidegate.rls.RlsSupport;

/** Resolves and caches the {@link MethodPolicy} of each {@link RateLimited} method: once per method, never per call. */
@ApplicationScoped
public class MethodPolicies {

    /** The arguments of a call decided from its HTTP request alone. */
    static final Object[] NO_ARGUMENTS = new Object[0];

    private final PolicyBinder binder;
    private final PolicyCatalog catalog;
    private final PlanResolver plans;
    private final Map<Method, List<MethodPolicy>> cache = new ConcurrentHashMap<>();
    /** The REST clients whose calls are paced, and what each client's bean is named at build time. */
    private final RestClients restClients = new RestClients();
    private final Map<String, String> clientOfSignature;
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
    MethodPolicies(PolicyRegistry registry, @Any Instance<KeyResolver> resolvers,
            @Any Instance<dev.slidegate.api.CostResolver> costResolvers, PlanResolver plans, PolicyCatalog catalog,
            Instance<RateLimitedSites.Sites> sites) {
        this(new PolicyBinder(registry, byName(resolvers), byName(costResolvers)), plans, catalog);
        sites.get().all().stream().filter(RateLimitedSites.Sites.Site::outgoing).forEach(site -> clientOfSignature
                .put(site.signature().substring(0, site.signature().indexOf('(')), site.client()));
    }

    /** For tests: {@code resolvers} finds a {@link KeyResolver} by bean name, or answers {@code null}; no catalog. */
    MethodPolicies(PolicyRegistry registry, Function<String, KeyResolver> resolvers, PlanResolver plans) {
        this(new PolicyBinder(registry, resolvers), plans, PolicyCatalog.empty());
    }

    /** For tests: as start-up would have left it, with {@code catalog}. */
    MethodPolicies(PolicyRegistry registry, Function<String, KeyResolver> resolvers, PlanResolver plans,
            PolicyCatalog catalog) {
        this(new PolicyBinder(registry, resolvers), plans, catalog);
    }

    private MethodPolicies(PolicyBinder binder, PlanResolver plans, PolicyCatalog catalog) {
        this.binder = binder;
        this.plans = plans;
        this.catalog = catalog;
        this.clientOfSignature = new ConcurrentHashMap<>();
    }

    /**
     * The policies of the REST Client interface method {@code m} once a call of it was decided, else {@code null}: what
     * its response teaches applies to them.
     */
    List<MethodPolicy> outgoing(Method m) {
        return restClients.of(m);
    }

    /**
     * The service's policies, bound once at start-up from every {@code @RateLimited} the build found and the
     * configuration ({@link PolicyBinder#catalog}).
     */
    @Produces
    @Singleton
    static PolicyCatalog catalog(PolicyRegistry registry, @Any Instance<KeyResolver> resolvers,
            @Any Instance<dev.slidegate.api.CostResolver> costResolvers, Instance<RateLimitedSites.Sites> sites,
            RlsPolicies rls) {
        return new PolicyBinder(registry, byName(resolvers), byName(costResolvers)).catalog(sites.get().all(), rls.bounds());
    }

    /**
     * The rules of Envoy's rate-limit service as policies ({@code slidegate.rls.*}): none unless it is on, and then only in
     * a service built with what serves it.
     */
    @Produces
    @Singleton
    static RlsPolicies rlsPolicies(dev.slidegate.config.SlidegateConfig config, Instance<RlsSupport> built) {
        if (config.rls().enabled() && !built.isResolvable()) {
            throw new io.quarkus.runtime.configuration.ConfigurationException("slidegate.rls.enabled=true needs "
                    + "io.quarkus:quarkus-grpc and com.fasterxml.jackson.dataformat:jackson-dataformat-yaml in the service "
                    + "when it is built (docs/envoy.md)");
        }
        return new RlsPolicies(config, config.rls().enabled()
                ? built.get().read(config.rls().config().orElse(List.of()))
                : RlsRules.none());
    }

    private static <T> Function<String, T> byName(Instance<T> resolvers) {
        return name -> {
            Instance<T> named = resolvers.select(NamedLiteral.of(name));
            return named.isResolvable() ? named.get() : null;
        };
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
        if (!resolved.isEmpty() && resolved.get(0).client() != null) {
            restClients.remember(method, resolved);
        }
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
        for (int i = 0; i < overloads.size(); i++) { // (by index: no iterator for every request)
            Endpoint e = overloads.get(i);
            if (Arrays.equals(e.parameters(), parameters)) {
                return e.early() != null || e.knownWhenLooked() == bySignature.size() ? e.early()
                        : lookUp(type, name, parameters, false);
            }
        }
        return lookUp(type, name, parameters, true);
    }

    private List<MethodPolicy> lookUp(Class<?> type, String name, Class<?>[] parameters, boolean first) {
        List<MethodPolicy> policies = bySignature.get(new Signature(type, name, List.of(parameters)));
        if (policies == null && first) {
            policies = annotated(type, name, parameters);
        }
        int known = bySignature.size();
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
     * The policies of an endpoint the interceptor has not met yet, from its annotations, so that its first request is
     * decided before dispatch as every later one is: a streamed answer's headers are written when its stream is
     * subscribed, before a decision the interceptor makes inside it, and the first call of a streamed endpoint went out
     * without its RateLimit fields. Only where the annotations say the bindings plainly (on the method or on the class,
     * not both); {@code null} otherwise, and where the class cannot be inspected (a native image lists the methods of
     * registered classes only): the interceptor decides it, as before.
     */
    private List<MethodPolicy> annotated(Class<?> type, String name, Class<?>[] parameters) {
        try {
            Method m = type.getDeclaredMethod(name, parameters);
            RateLimited[] own = m.getAnnotationsByType(RateLimited.class);
            RateLimited[] onClass = type.getAnnotationsByType(RateLimited.class);
            if ((own.length > 0) == (onClass.length > 0)) {
                return null; // none, or on both: the interceptor's bindings say which apply
            }
            return of(m, List.of(own.length > 0 ? own : onClass));
        } catch (NoSuchMethodException | RuntimeException | LinkageError e) {
            return null;
        }
    }

    /**
     * The policy attached by configuration to requests matching {@code pattern}: as for an
     * annotation without members, so the policy's configuration and the defaults decide everything.
     */
    /** The cost parameter of {@code m}, or -1; a misplaced one stops start-up with its sentence. */
    private static int costParameter(Method m, String where) {
        try {
            return MethodShape.costParameter(m, where);
        } catch (IllegalArgumentException e) {
            throw new io.quarkus.runtime.configuration.ConfigurationException("Invalid Slidegate configuration: "
                    + e.getMessage());
        }
    }

    /**
     * {@code mp} and the policies that count its input and output tokens apart ({@code input-limits},
     * {@code output-limits}), bound where it is, each estimating its part ({@link LlmRequestEstimate#part}).
     */
    List<MethodPolicy> withTokenParts(MethodPolicy mp) {
        List<PolicyRegistry.Resolved> parts = binder.tokenParts(mp.resolved(), mp.where());
        if (parts.isEmpty()) {
            return List.of(mp);
        }
        List<MethodPolicy> all = new ArrayList<>(List.of(mp));
        for (PolicyRegistry.Resolved part : parts) {
            all.add(mp.countingPart(part, LlmRequestEstimate.part(mp.costResolver(), part.settlement().part())));
        }
        return List.copyOf(all);
    }

    MethodPolicy attached(String policy, String pattern) {
        PolicyCatalog.Bound b = binder.attached(policy);
        PolicyRegistry.Resolved r = b.resolved();
        return new MethodPolicy(null, b.where(),
                new dev.slidegate.config.PolicyRegistry.Resolved(r.name(), r.policy(), r.key(), r.plans(), r.cost(), false,
                        r.settlement(), r.costResolver(), r.partitionKey(), r.blockForMicros(), r.blockAfter()),
                -1, MethodPolicy.Kind.PLAIN, pattern, binder.resolversOf(r, b.where()), null, -1,
                binder.costResolverOf(r, b.where()));
    }

    /** The policy of {@code method} with a single binding. */
    MethodPolicy of(Method method, RateLimited binding) {
        return of(method, List.of(binding)).get(0);
    }

    /** {@code com.example.ShopClient$$CDIWrapper#get}: how a REST client's site is known to {@link #clientOfSignature}. */
    private static String typeAndName(Method m) {
        return m.getDeclaringClass().getName() + "#" + m.getName();
    }

    private List<MethodPolicy> resolveAll(Method m, List<RateLimited> bindings) {
        if (RestClients.isWrapper(m.getDeclaringClass()) && !clientOfSignature.isEmpty()
                && !clientOfSignature.containsKey(typeAndName(m))) {
            return List.of(); // the REST client bean's own plumbing (close, setMock...): a class-level binding reaches it too
        }
        // calls in flight are asked first: a later policy's refusal ends their leases, so a refused call holds nothing;
        // then by name, as path policies are (the bindings come as a set: their order in the source is not known here)
        List<MethodPolicy> resolved = bindings.stream().flatMap(b -> withTokenParts(resolve(m, b)).stream())
                .sorted(java.util.Comparator.<MethodPolicy, Boolean> comparing(mp -> !mp.policy().inFlight())
                        .thenComparing(mp -> mp.policy().name()))
                .toList();
        long distinct = resolved.stream().map(mp -> mp.policy().name()).distinct().count();
        if (distinct < resolved.size()) {
            throw PolicyBinder.namedTwice(resolved.get(0).where());
        }
        return resolved;
    }

    /**
     * The policy of one binding of {@code m}, bound as start-up bound it; a method the build did not see (one a bean
     * inherits, a test's) must agree with the catalog's policy of the same name, and is not added to it.
     */
    private MethodPolicy resolve(Method m, RateLimited ann) {
        PolicyCatalog.Bound b = binder.method(m, ann);
        catalog.checkAgrees(b);
        PolicyRegistry.Resolved r = b.resolved();
        String where = b.where();
        String client = null;
        if (RestClients.isWrapper(m.getDeclaringClass())) {
            String type = m.getDeclaringClass().getName(); // a method the build did not see: named after its interface
            client = clientOfSignature.getOrDefault(typeAndName(m),
                    type.substring(0, type.length() - RestClients.WRAPPER_SUFFIX.length()));
        }
        return new MethodPolicy(m, where, r, MethodShape.keyParameter(m), MethodShape.kind(m),
                client == null ? MethodShape.route(m, where) : where.replace('#', '.'), binder.resolversOf(r, where), client,
                costParameter(m, where), binder.costResolverOf(r, where));
    }
}
