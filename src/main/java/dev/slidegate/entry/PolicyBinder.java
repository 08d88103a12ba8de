package dev.slidegate.entry;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import org.jboss.logging.Logger;

import dev.slidegate.api.CostResolver;
import dev.slidegate.api.KeyResolver;
import dev.slidegate.api.RateLimited;
import dev.slidegate.config.KeySource;
import dev.slidegate.config.PolicyCatalog;
import dev.slidegate.config.PolicyRegistry;
import io.quarkus.runtime.configuration.ConfigurationException;

/**
 * The one binder of policies to where they apply: a {@code @RateLimited} as the build found it ({@link RateLimitedSites}),
 * the same annotation on a method met at run time, or a configured path attachment, each resolved by the
 * {@link PolicyRegistry}'s rule and checked by the same rules (the method's shape, its key resolvers, a cost no limit
 * grants). At start-up it binds everything the build found into the {@link PolicyCatalog}.
 */
final class PolicyBinder {

    private static final Logger LOG = Logger.getLogger("dev.slidegate");

    private final PolicyRegistry registry;
    private final Function<String, KeyResolver> resolvers;
    private final Function<String, CostResolver> costResolvers;

    /**
     * @param resolvers finds a {@link KeyResolver} by bean name, or answers {@code null}
     */
    PolicyBinder(PolicyRegistry registry, Function<String, KeyResolver> resolvers) {
        this(registry, resolvers, name -> null);
    }

    /**
     * @param resolvers finds a {@link KeyResolver} by bean name, or answers {@code null}
     * @param costResolvers finds a {@link CostResolver} by bean name, or answers {@code null}
     */
    PolicyBinder(PolicyRegistry registry, Function<String, KeyResolver> resolvers,
            Function<String, CostResolver> costResolvers) {
        this.registry = registry;
        this.resolvers = resolvers;
        this.costResolvers = costResolvers;
    }

    /**
     * The catalog of every {@code @RateLimited} found while the application was built and every configured policy.
     *
     * @throws ConfigurationException for the first invalid binding, naming the setting or {@code Class#method}
     */
    PolicyCatalog catalog(List<RateLimitedSites.Sites.Site> sites) {
        return catalog(sites, List.of());
    }

    /** {@link #catalog(List)} with {@code more} policies bound elsewhere (the rules of Envoy's rate-limit service). */
    PolicyCatalog catalog(List<RateLimitedSites.Sites.Site> sites, List<PolicyCatalog.Bound> more) {
        List<PolicyCatalog.Bound> bound = new ArrayList<>(more);
        Map<String, Set<String>> policiesOf = new LinkedHashMap<>();
        for (RateLimitedSites.Sites.Site site : sites) {
            PolicyCatalog.Bound b = site(site);
            if (!policiesOf.computeIfAbsent(site.signature(), w -> new HashSet<>()).add(b.resolved().name())) {
                throw namedTwice(site.where());
            }
            bound.add(b);
            registry.tokenParts(b.resolved(), site.where()).forEach(part -> bound.add(new PolicyCatalog.Bound(part,
                    site.where())));
        }
        registry.attachments().forEach(a -> {
            PolicyCatalog.Bound b = attached(a.policy());
            bound.add(b);
            registry.tokenParts(b.resolved(), b.where()).forEach(part -> bound.add(new PolicyCatalog.Bound(part,
                    b.where())));
        });
        return PolicyCatalog.of(registry, bound);
    }

    /**
     * A {@code @RateLimited} found while the application was built, bound as {@link #method} binds it at a call, without
     * the method itself. What it cannot see (the route of an endpoint) is found at the first call.
     */
    PolicyCatalog.Bound site(RateLimitedSites.Sites.Site site) {
        String name = policyName(site.value(), site.className(), site.methodName());
        PolicyRegistry.Declared declared = new PolicyRegistry.Declared(name, site.limits(), site.strategy(), site.key(),
                site.countRejected().value(), site.dryRun().value(), site.cost(), site.maxWait(), site.outgoing(),
                site.maxInFlight(), site.lease(), site.unit());
        checkShape(site.where(), site.keyParameters(), site.returnType());
        return checked(declared, site.where());
    }

    /** The policy one {@code @RateLimited} of {@code m} names. */
    PolicyCatalog.Bound method(Method m, RateLimited ann) {
        String owner = RestClients.simpleName(m.getDeclaringClass());
        String where = owner + "#" + m.getName();
        String name = policyName(ann.value(), owner, m.getName());
        PolicyRegistry.Declared declared = new PolicyRegistry.Declared(name, List.of(ann.limits()), ann.strategy(), ann.key(),
                ann.countRejected().value(), ann.dryRun().value(), ann.cost(), ann.maxWait(),
                RestClients.isWrapper(m.getDeclaringClass()), ann.maxInFlight(), ann.lease(), ann.unit());
        checkShape(where, MethodShape.keyParameterCount(m), m.getGenericReturnType().getTypeName());
        return checked(declared, where);
    }

    /** A policy attached to requests by configuration: as an annotation without members, so configuration decides. */
    PolicyCatalog.Bound attached(String policy) {
        return checked(new PolicyRegistry.Declared(policy, List.of(), "", ""), "slidegate.policies." + policy + ".paths");
    }

    private PolicyCatalog.Bound checked(PolicyRegistry.Declared declared, String where) {
        PolicyRegistry.Resolved r = registry.resolve(declared, where);
        warnIfNeverGranted(r, where);
        resolversOf(r, where);
        costResolverOf(r, where);
        return new PolicyCatalog.Bound(r, where);
    }

    /** The policies that count {@code r}'s input and output tokens apart ({@link PolicyRegistry#tokenParts}). */
    List<PolicyRegistry.Resolved> tokenParts(PolicyRegistry.Resolved r, String where) {
        return registry.tokenParts(r, where);
    }

    static ConfigurationException namedTwice(String where) {
        return new ConfigurationException("Invalid Slidegate configuration: " + where
                + " names the same policy in two @RateLimited annotations: keep one");
    }

    /** The policy a {@code @RateLimited} names: its value, or {@code SimpleClassName.method} when it names none. */
    private static String policyName(String value, String simpleClassName, String methodName) {
        return value.isBlank() ? simpleClassName + "." + methodName : value.trim();
    }

    private static void warnIfNeverGranted(PolicyRegistry.Resolved r, String where) {
        int cost = r.cost();
        r.policy().limits().stream().filter(l -> l.permits() < cost).findFirst().ifPresent(l -> LOG.warnf(
                "%s costs %d permits, more than limit %s of policy '%s' ever grants: every call will be refused", where, cost,
                l, r.policy().name()));
    }

    /**
     * The rules on a rate-limited method's shape, the same whether the build found it or a call meets it: one
     * {@code @RateLimitKey} at most (a {@code Multi} is decided when it is subscribed to, like a {@code Uni}).
     *
     * @param returnType the return type's name with its arguments, e.g. {@code io.smallrye.mutiny.Multi<java.lang.String>}
     */
    static void checkShape(String where, int keyParameters, String returnType) {
        if (keyParameters > 1) {
            throw new ConfigurationException("Invalid Slidegate configuration: " + where
                    + " has more than one @RateLimitKey parameter: keep one");
        }
    }

    /** The key resolver beans a policy's key source names, by name; a name without a bean is an error. */
    Map<String, KeyResolver> resolversOf(PolicyRegistry.Resolved r, String where) {
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

    /**
     * The {@link CostResolver} a policy names ({@code cost-resolver}), or {@code null} when it names none: the service's
     * bean of that name, else a built-in one ({@link LlmRequestEstimate}).
     *
     * @throws ConfigurationException when there is no such bean
     */
    CostResolver costResolverOf(PolicyRegistry.Resolved r, String where) {
        if (r.costResolver() == null) {
            return null;
        }
        CostResolver found = costResolvers.apply(r.costResolver());
        if (found == null && LlmRequestEstimate.NAME.equals(r.costResolver())) {
            found = LlmRequestEstimate.INSTANCE;
        }
        if (found == null) {
            throw new ConfigurationException("Invalid Slidegate configuration: " + where + ": policy '" + r.name()
                    + "' works out its calls' cost with '" + r.costResolver() + "' (slidegate.policies." + r.name()
                    + ".cost-resolver), but there is no @Named(\"" + r.costResolver() + "\") CostResolver bean");
        }
        return found;
    }
}
