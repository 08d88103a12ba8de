package dev.slidegate.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import dev.slidegate.api.FailMode;
import dev.slidegate.api.Limit;
import dev.slidegate.api.Strategy;
import io.quarkus.runtime.configuration.ConfigurationException;

/**
 * The members one policy's configuration sets ({@code slidegate.policies.<name>.*} or {@code slidegate.defaults.*}),
 * each empty where unset, read once and checked for what involves more than one value (a plan's name and limits, a
 * default plan that is one of the plans, cells, cost, paths and methods); each value itself was converted by SmallRye
 * Config (see {@link Converters}).
 */
public record PolicyMembers(Optional<List<Limit>> limits, Optional<Strategy> strategy, Optional<KeySource> key,
        Optional<Boolean> countRejected, Optional<Boolean> dryRun, Optional<Integer> cost, Map<String, List<Limit>> plans,
        Optional<String> defaultPlan, Optional<Integer> cells, Optional<FailMode> failMode, Optional<Long> maxWaitMicros,
        Map<String, Long> planMaxWaits, Optional<Boolean> outgoing) {

    private static final java.util.regex.Pattern PLAN_NAME = java.util.regex.Pattern.compile("[A-Za-z0-9_-]{1,32}");

    private static final java.util.regex.Pattern PATH = java.util.regex.Pattern.compile("/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*");
    private static final java.util.regex.Pattern METHOD = java.util.regex.Pattern.compile("[A-Z]{1,16}");

    /**
     * A policy attached to requests by configuration alone.
     *
     * @param policy the policy's name
     * @param paths glob patterns ({@code *} one segment, {@code **} any rest)
     * @param methods upper-case HTTP methods; empty for all
     */
    public record Attachment(String policy, List<String> paths, List<String> methods) {
    }

    static PolicyMembers of(String prefix, SlidegateConfig.PolicyConfig p) {
        Optional<List<Limit>> limits = p.limits().map(list -> nonEmpty(list, prefix + "limits"));
        Optional<Strategy> strategy = p.strategy();
        Optional<KeySource> key = p.key();
        p.cost().filter(c -> c < 1).ifPresent(c -> {
            throw fail(prefix + "cost: '" + c + "' is not a cost: expected a whole number of permits, at least 1");
        });
        Map<String, List<Limit>> plans = new TreeMap<>();
        Map<String, Long> planMaxWaits = new TreeMap<>();
        Optional<Long> maxWait = p.maxWait().map(d -> maxWaitMicros(d, prefix + "max-wait"));
        Map<String, String> lowerCase = new TreeMap<>();
        p.plans().forEach((plan, planConfig) -> {
            if (!PLAN_NAME.matcher(plan).matches()) {
                throw fail(prefix + "plans: '" + plan + "' is not a plan name: use 1 to 32 letters, digits, '_' or '-'");
            }
            String other = lowerCase.put(plan.toLowerCase(java.util.Locale.ROOT), plan);
            if (other != null) {
                String first = other.compareTo(plan) < 0 ? other : plan; // a stable message, whatever the map's order
                String second = first.equals(other) ? plan : other;
                throw fail(prefix + "plans: '" + first + "' and '" + second + "' overlap (plan names ignore case): keep one");
            }
            List<Limit> planLimits = planConfig.limits()
                    .orElseThrow(() -> fail(prefix + "plans." + plan + ".limits is missing: expected "
                            + Limit.EXPECTED));
            plans.put(plan, nonEmpty(planLimits, prefix + "plans." + plan + ".limits"));
            planConfig.maxWait()
                    .ifPresent(d -> planMaxWaits.put(plan, maxWaitMicros(d, prefix + "plans." + plan + ".max-wait")));
        });
        p.defaultPlan().filter(d -> !plans.containsKey(d)).ifPresent(d -> {
            throw fail(prefix + "default-plan: '" + d + "' is not one of the plans " + plans.keySet());
        });
        p.cells().filter(c -> c < 1 || c > 100).ifPresent(c -> {
            throw fail(prefix + "cells: '" + c + "' is not a number of cells: expected 1 to 100, e.g. 10");
        });
        Optional<FailMode> failMode = p.failMode();
        return new PolicyMembers(limits, strategy, key, p.countRejected(), p.dryRun(), p.cost(), Map.copyOf(plans),
                p.defaultPlan(),
                p.cells(), failMode, maxWait, Map.copyOf(planMaxWaits), p.outgoing());
    }

    /**
     * A maximum wait as a policy holds it: whole microseconds, 0 to one day.
     *
     * @throws ConfigurationException naming {@code where} otherwise
     */
    static long maxWaitMicros(java.time.Duration d, String where) {
        if (d.isNegative() || d.compareTo(java.time.Duration.ofDays(1)) > 0) {
            throw fail(where + ": '" + d + "' is not a max-wait: expected 0 (refuse at once) to 1d, e.g. 2s or 500ms");
        }
        return d.toNanos() / 1000;
    }

    static Attachment attachment(String name, List<String> paths, List<String> methods) {
        String prefix = "slidegate.policies." + name + ".";
        for (String path : paths) {
            if (!PATH.matcher(path.trim()).matches()) {
                throw fail(prefix + "paths: '" + path + "' is not a path pattern: expected e.g. /api/things/* or /files/**");
            }
        }
        List<String> upper = new ArrayList<>();
        for (String m : methods) {
            String u = m.trim().toUpperCase(java.util.Locale.ROOT);
            if (!METHOD.matcher(u).matches()) {
                throw fail(prefix + "methods: '" + m + "' is not an HTTP method: expected e.g. GET,POST");
            }
            upper.add(u);
        }
        return new Attachment(name, paths.stream().map(String::trim).toList(), List.copyOf(upper));
    }

    static List<Limit> nonEmpty(List<Limit> limits, String property) {
        if (limits.isEmpty()) {
            throw fail(property + " is empty: expected " + Limit.EXPECTED);
        }
        return List.copyOf(limits);
    }

    private static ConfigurationException fail(String message) {
        return new ConfigurationException("Invalid Slidegate configuration: " + message);
    }
}
