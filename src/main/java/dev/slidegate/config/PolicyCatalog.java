package dev.slidegate.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import dev.slidegate.api.Policy;
import io.quarkus.runtime.configuration.ConfigurationException;

/**
 * Every policy of the service by name, fixed once at start-up and never added to afterwards: the policies of the
 * {@code @RateLimited} methods the build found, those configuration attaches to paths, and every configured policy
 * complete on its own (the ones the {@code RateLimiter} API names). The admin, health, overrides and the
 * {@code RateLimiter} read it; the rules that make a catalog whole are checked here, once: one definition per name,
 * every configured policy complete, names that differ only in case, API keys under a plan no policy has.
 */
public final class PolicyCatalog {

    /** A policy as one binding resolved it: an annotation at {@code Class#method}, or a configuration property. */
    public record Bound(PolicyRegistry.Resolved resolved, String where) {
    }

    private static final PolicyCatalog EMPTY = new PolicyCatalog(Map.of(), List.of());

    private final Map<String, Bound> byName;
    private final Map<String, PolicyRegistry.Resolved> policies;
    private final List<String> warnings;

    private PolicyCatalog(Map<String, Bound> byName, List<String> warnings) {
        this.byName = Collections.unmodifiableMap(new TreeMap<>(byName));
        Map<String, PolicyRegistry.Resolved> resolved = new TreeMap<>();
        byName.forEach((name, b) -> resolved.put(name, b.resolved()));
        this.policies = Collections.unmodifiableMap(resolved);
        this.warnings = List.copyOf(warnings);
    }

    /** A catalog with no policy, for a limiter built by hand (tests) rather than by start-up. */
    public static PolicyCatalog empty() {
        return EMPTY;
    }

    /**
     * The catalog of what {@code bound} resolved (the annotations the build found, the configured path attachments)
     * and of every other configured policy.
     *
     * @throws ConfigurationException when two bindings define one name differently, a configured policy is
     *         incomplete, or names differ from those in use only in case
     */
    public static PolicyCatalog of(PolicyRegistry rules, List<Bound> bound) {
        Map<String, Bound> byName = new TreeMap<>();
        for (Bound b : bound) {
            Bound first = byName.putIfAbsent(b.resolved().name(), b);
            if (first != null) {
                checkSame(first, b);
            }
        }
        Set<String> used = new TreeSet<>(byName.keySet());
        for (String name : rules.configuredNames()) {
            if (!byName.containsKey(name)) {
                byName.put(name, new Bound(rules.configuredAlone(name), "slidegate.policies." + name));
            }
        }
        return new PolicyCatalog(byName, namesMatch(rules, used));
    }

    /** Every policy by name, plans inside their policy. */
    public Map<String, PolicyRegistry.Resolved> policies() {
        return policies;
    }

    /** The policy named {@code name}, or {@code null}. */
    public PolicyRegistry.Resolved get(String name) {
        return policies.get(name);
    }

    /**
     * One warning per configured policy that nothing here uses and whose name is one edit from one in use
     * ({@code logn} beside {@code login}): the {@code RateLimiter} API may use it, which start-up cannot see.
     */
    public List<String> warnings() {
        return warnings;
    }

    /**
     * Checks that a definition met after start-up (a method the build did not see, such as one a bean inherits)
     * agrees with the catalog's policy of the same name, if it has one.
     */
    public void checkAgrees(Bound late) {
        Bound known = byName.get(late.resolved().name());
        if (known != null) {
            checkSame(known, late);
        }
    }

    private static void checkSame(Bound first, Bound other) {
        if (first.resolved().outgoing() != other.resolved().outgoing()) {
            Bound out = first.resolved().outgoing() ? first : other;
            Bound in = out == first ? other : first;
            throw fail(out.where() + " paces calls to an upstream with policy '" + out.resolved().name() + "', and "
                    + in.where() + " limits requests this service answers with it: give one of them a policy of its own");
        }
        if (!first.resolved().sameDefinition(other.resolved())) {
            String name = other.resolved().name();
            throw fail(other.where() + " defines policy '" + name + "' as " + summary(other.resolved()) + " but "
                    + first.where() + " defines it as " + summary(first.resolved())
                    + ": give one of them another name, or configure slidegate.policies." + name + ".*");
        }
    }

    private static List<String> namesMatch(PolicyRegistry rules, Set<String> used) {
        Set<String> configured = rules.configuredNames();
        Set<String> names = new TreeSet<>(configured);
        names.addAll(used);
        for (String name : configured) {
            for (String other : names) {
                if (!other.equals(name) && other.equalsIgnoreCase(name)) {
                    throw fail("slidegate.policies." + name + ".*: there is no policy '" + name + "', but there is '" + other
                            + "' (policy names are case-sensitive): name its settings slidegate.policies." + other + ".*");
                }
            }
        }
        Set<String> plans = rules.configuredPlans();
        for (String plan : new TreeSet<>(rules.apiKeyPlans())) {
            if (!plans.contains(plan)) {
                String near = plans.stream().filter(p -> p.equalsIgnoreCase(plan)).findFirst()
                        .map(p -> ": the plan is '" + p + "' (plan names are case-sensitive here)").orElse(
                                plans.isEmpty() ? ": no policy has plans (slidegate.policies.<name>.plans.<plan>.limits)"
                                        : "; the plans are " + plans);
                throw fail("slidegate.plans.api-keys." + plan + ": no policy has a plan '" + plan + "'" + near);
            }
        }
        // what start-up cannot decide: a configured policy nothing here uses may be the RateLimiter API's, or a typo
        List<String> warnings = new ArrayList<>();
        for (String name : configured) {
            if (!used.contains(name)) {
                used.stream().filter(u -> distance(u, name) == 1).findFirst().ifPresent(u -> warnings.add("slidegate.policies."
                        + name + ".* configures a policy that no @RateLimited method or path uses, and '" + u
                        + "' is one: a misspelling? (the RateLimiter API may use '" + name + "'; start-up cannot tell)"));
            }
        }
        return warnings;
    }

    /** The edit distance of two names (insertions, deletions, substitutions). */
    private static int distance(String a, String b) {
        int[] row = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            row[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            int diagonal = row[0];
            row[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int above = row[j];
                row[j] = Math.min(Math.min(row[j] + 1, row[j - 1] + 1),
                        diagonal + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1));
                diagonal = above;
            }
        }
        return row[b.length()];
    }

    private static String summary(PolicyRegistry.Resolved r) {
        Policy p = r.policy();
        return p.limits() + " " + p.counting() + " by " + p.key() + (p.countRejected() ? " counting rejected" : "")
                + (p.dryRun() ? " in dry-run" : "");
    }

    private static ConfigurationException fail(String message) {
        return new ConfigurationException("Invalid Slidegate configuration: " + message);
    }
}
