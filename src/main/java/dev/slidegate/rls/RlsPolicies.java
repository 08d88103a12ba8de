package dev.slidegate.rls;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import dev.slidegate.api.FailMode;
import dev.slidegate.api.Limit;
import dev.slidegate.api.Policy;
import dev.slidegate.api.Strategy;
import dev.slidegate.config.KeySource;
import dev.slidegate.config.PolicyCatalog;
import dev.slidegate.config.PolicyRegistry;
import dev.slidegate.config.SlidegateConfig;
import io.quarkus.runtime.configuration.ConfigurationException;

/**
 * The rules of Envoy's rate-limit service as Slidegate policies: each {@code rate_limit} of the rule files
 * ({@code slidegate.rls.config}) is a policy of the catalog, named after its place ({@code rls.<domain>.<key>_<value>...}),
 * so that the admin, overrides, metrics and logs treat it as any other. A {@code shadow_mode} rule is a dry-run policy;
 * every rule counts with {@code slidegate.rls.strategy} and fails as {@code slidegate.fail-mode} says. A bean only where
 * the service has {@code quarkus-grpc} ({@code config/OptionalParts}).
 */
public class RlsPolicies {

    /**
     * A rule's policy: {@code null} for an unlimited rule or one of 0 requests (decided without a store); and the rule of
     * each of its plans, by plan name (empty for a rule without {@code plans}).
     */
    public record Rule(RlsRules.Limit limit, dev.slidegate.engine.MethodPolicy method, Map<String, Rule> plans) {

        Rule(RlsRules.Limit limit, dev.slidegate.engine.MethodPolicy method) {
            this(limit, method, Map.of());
        }

        /** The rule's policy as the catalog binds it; {@code null} when it has none. */
        public PolicyRegistry.Resolved resolved() {
            return method == null ? null : method.resolved();
        }

        /** The rule for callers of {@code plan}: its plan's, or this one for none or a plan it does not list. */
        public Rule forPlan(String plan) {
            Rule r = plan == null || plans.isEmpty() ? null : plans.get(plan);
            return r == null ? this : r;
        }
    }

    private final boolean enabled;
    private final RlsRules rules;
    private final Map<RlsRules.Limit, Rule> byLimit;

    /** The policies of {@code rules} (read by {@link RlsSupport#read}, or none), as the configuration says. */
    public RlsPolicies(SlidegateConfig config, RlsRules rules) {
        this(config.rls().enabled(), rules,
                config.rls().strategy().or(() -> config.defaults().strategy()).orElse(Strategy.SLIDING_LOG),
                config.failMode().orElse(FailMode.LOCAL));
    }

    /** The policies of {@code rules}, counted with {@code strategy} and failing as {@code failMode} says. */
    public RlsPolicies(boolean enabled, RlsRules rules, Strategy strategy, FailMode failMode) {
        this.enabled = enabled;
        this.rules = rules;
        Map<RlsRules.Limit, Rule> all = new LinkedHashMap<>();
        Set<String> names = new HashSet<>();
        for (RlsRules.Limit l : rules.limits()) {
            Map<String, Rule> plans = new LinkedHashMap<>();
            for (RlsRules.Plan plan : l.plans()) {
                RlsRules.Limit of = l.of(plan);
                plans.put(plan.name(), new Rule(of, method(of, names, strategy, failMode)));
            }
            all.put(l, new Rule(l, method(l, names, strategy, failMode), java.util.Collections.unmodifiableMap(plans)));
        }
        this.byLimit = java.util.Collections.unmodifiableMap(all); // in the order of the files
    }

    /** The policy of a rule's limit (or a plan's), built once, not per request; {@code null} when it has none. */
    private static dev.slidegate.engine.MethodPolicy method(RlsRules.Limit l, Set<String> names, Strategy strategy,
            FailMode failMode) {
        if (l.unlimited() || l.perUnit() == 0) {
            return null;
        }
        if (l.perUnit() > Integer.MAX_VALUE) {
            throw new ConfigurationException("slidegate.rls.config: rule " + l.id() + " allows " + l.perUnit()
                    + " requests per " + l.unit().name().toLowerCase(Locale.ROOT) + "; Slidegate counts at most "
                    + Integer.MAX_VALUE);
        }
        String name = name(l, names);
        Policy policy = new Policy(name, List.of(new Limit((int) l.perUnit(), l.unit().micros())), strategy, "rls", false,
                l.shadow(), Policy.DEFAULT_CELLS, failMode);
        return new dev.slidegate.engine.MethodPolicy("ShouldRateLimit(" + l.domain() + ")",
                new PolicyRegistry.Resolved(name, policy, new KeySource.Global(), Map.of(), 1),
                dev.slidegate.engine.MethodPolicy.Kind.STAGE);
    }

    /** Whether the service answers {@code ShouldRateLimit} ({@code slidegate.rls.enabled}). */
    public boolean enabled() {
        return enabled;
    }

    public RlsRules rules() {
        return rules;
    }

    /** The policy of a rule's limit. */
    public Rule rule(RlsRules.Limit limit) {
        return byLimit.get(limit);
    }

    /** The rules' policies, for the catalog. */
    public List<PolicyCatalog.Bound> bounds() {
        List<PolicyCatalog.Bound> out = new ArrayList<>();
        for (Rule rule : byLimit.values()) {
            List<Rule> each = new ArrayList<>(List.of(rule));
            each.addAll(rule.plans().values());
            for (Rule r : each) {
                if (r.resolved() != null) {
                    out.add(new PolicyCatalog.Bound(r.resolved(), "slidegate.rls.config (rule " + r.limit().id() + ")"));
                }
            }
        }
        return out;
    }

    /**
     * {@code rls.} and the rule's place, in the characters a policy name has ({@code [A-Za-z0-9._#-]}, others as
     * {@code -}), shortened to 64 with a number where it is too long or taken.
     */
    private static String name(RlsRules.Limit l, Set<String> taken) {
        StringBuilder b = new StringBuilder("rls.");
        for (int i = 0; i < l.id().length(); i++) {
            char c = l.id().charAt(i);
            b.append(c < 128 && (Character.isLetterOrDigit(c) || c == '.' || c == '_' || c == '-') ? c : '-');
        }
        String name = b.length() <= 64 ? b.toString() : b.substring(0, 58);
        for (int n = 2; name.length() > 64 || !taken.add(name.toLowerCase(Locale.ROOT)); n++) {
            String suffix = "#" + n;
            name = (b.length() + suffix.length() <= 64 ? b.toString() : b.substring(0, 64 - suffix.length())) + suffix;
        }
        return name;
    }

}
