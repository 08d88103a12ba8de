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
 * Config (see {@link Converters}). {@code inFlight}: it sets {@code max-in-flight}, a policy of calls in flight, whose
 * one limit is made of it and the lease time (and which has no strategy).
 */
public record PolicyMembers(Optional<List<Limit>> limits, Optional<Strategy> strategy, Optional<KeySource> key,
        Optional<Boolean> countRejected, Optional<Boolean> dryRun, Optional<Integer> cost, Map<String, List<Limit>> plans,
        Optional<String> defaultPlan, Optional<Integer> cells, Optional<FailMode> failMode, Optional<Long> maxWaitMicros,
        Map<String, Long> planMaxWaits, Optional<Boolean> outgoing, Optional<String> unit, Optional<Boolean> settle,
        Optional<Boolean> refundFailures, Optional<java.time.ZoneId> zone, Optional<String> usageHeader,
        Optional<String> costResolver, Optional<Boolean> partitionKey, Optional<dev.slidegate.core.CountWhen> countWhen,
        Optional<Long> blockForMicros, Optional<Limit> blockAfter, Optional<Boolean> usageFromAnswer, boolean inFlight) {

    /** No member set. */
    static final PolicyMembers NONE = new PolicyMembers(Optional.empty(), Optional.empty(), Optional.empty(),
            Optional.empty(), Optional.empty(), Optional.empty(), Map.of(), Optional.empty(), Optional.empty(),
            Optional.empty(), Optional.empty(), Map.of(), Optional.empty(), Optional.empty(), Optional.empty(),
            Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
            Optional.empty(), Optional.empty(), Optional.empty(), false);

    /**
     * These members, each one unset here taken from {@code other}: the one rule by which a policy's configuration, its
     * annotation and the defaults make one policy ({@code cfg.or(annotation).or(defaults)}). Limits and whether they
     * are of calls in flight come together, from the first that sets limits; plans are the first's that has any.
     */
    PolicyMembers or(PolicyMembers other) {
        return new PolicyMembers(limits.or(other::limits), strategy.or(other::strategy), key.or(other::key),
                countRejected.or(other::countRejected), dryRun.or(other::dryRun), cost.or(other::cost),
                plans.isEmpty() ? other.plans : plans, defaultPlan.or(other::defaultPlan), cells.or(other::cells),
                failMode.or(other::failMode), maxWaitMicros.or(other::maxWaitMicros),
                planMaxWaits.isEmpty() ? other.planMaxWaits : planMaxWaits, outgoing.or(other::outgoing),
                unit.or(other::unit), settle.or(other::settle), refundFailures.or(other::refundFailures),
                zone.or(other::zone), usageHeader.or(other::usageHeader), costResolver.or(other::costResolver),
                partitionKey.or(other::partitionKey), countWhen.or(other::countWhen),
                blockForMicros.or(other::blockForMicros), blockAfter.or(other::blockAfter),
                usageFromAnswer.or(other::usageFromAnswer), limits.isPresent() ? inFlight : other.inFlight);
    }

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

    /** The lease time of a policy with {@code max-in-flight} that sets none. */
    static final java.time.Duration DEFAULT_LEASE = java.time.Duration.ofSeconds(30);

    static PolicyMembers of(String prefix, SlidegateConfig.PolicyConfig p) {
        Optional<Long> lease = inFlight(prefix, p);
        Optional<List<Limit>> limits = lease.isPresent() ? Optional.of(List.of(new Limit(p.maxInFlight().get(), lease.get())))
                : p.limits().map(list -> nonEmpty(list, prefix + "limits"));
        Optional<Strategy> strategy = lease.isPresent() ? Optional.empty() : p.strategy();
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
            if (planConfig.maxInFlight().isPresent() != lease.isPresent()) {
                throw fail(prefix + "plans." + plan + (lease.isPresent()
                        ? ": the policy limits calls in flight (max-in-flight): give the plan its max-in-flight, not limits"
                        : ".max-in-flight: the policy limits calls per window: give the plan its limits"));
            }
            planConfig.maxInFlight().filter(m -> m < 1).ifPresent(m -> {
                throw fail(
                        prefix + "plans." + plan + ".max-in-flight: '" + m + "' is not a number of calls: expected at least 1");
            });
            List<Limit> planLimits = lease.isPresent()
                    ? List.of(new Limit(planConfig.maxInFlight().get(), lease.get()))
                    : planConfig.limits().orElseThrow(() -> fail(prefix + "plans." + plan + ".limits is missing: expected "
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
        Optional<String> unit = p.unit().map(u -> {
            try {
                dev.slidegate.api.Policy.checkUnit(u);
            } catch (IllegalArgumentException e) {
                throw fail(prefix + "unit: " + e.getMessage());
            }
            if (lease.isPresent()) {
                throw fail(prefix + "unit: a policy with max-in-flight counts calls running (concurrent-requests): "
                        + "leave its unit out");
            }
            if (u.equals(dev.slidegate.api.Policy.CONCURRENT_REQUESTS)) {
                throw fail(prefix + "unit: concurrent-requests is the unit of max-in-flight; a policy of windows counts "
                        + "requests, or a unit of its own (tokens, bytes, ...)");
            }
            return u;
        });
        if (lease.isPresent() && p.settle().orElse(false)) {
            throw fail(prefix + "settle: a policy with max-in-flight counts calls running, which have no usage to settle");
        }
        Optional<java.time.ZoneId> zone = p.zone();
        if (lease.isPresent() && zone.isPresent()) {
            throw fail(prefix + "zone: a policy with max-in-flight has no calendar periods to count in a zone");
        }
        Optional<String> usageHeader = p.usageHeader().map(String::trim).map(h -> {
            if (!KeySource.HEADER_NAME.matcher(h).matches()) {
                throw fail(prefix + "usage-header: '" + h + "' is not a header field name: use letters, digits and "
                        + "-!#$%&'*+.^_`|~, for example X-Tokens-Used");
            }
            return h;
        });
        if (lease.isPresent() && usageHeader.isPresent()) {
            throw fail(prefix + "usage-header: a policy with max-in-flight counts calls running, which have no usage to "
                    + "settle");
        }
        Optional<String> costResolver = p.costResolver().map(String::trim).map(r -> {
            if (!KeySource.BEAN_NAME.matcher(r).matches()) {
                throw fail(prefix + "cost-resolver: '" + r + "' is not a bean name: name a @Named CostResolver bean, "
                        + "for example cost-resolver=estimate");
            }
            return r;
        });
        Optional<dev.slidegate.core.CountWhen> countWhen = p.countWhen().map(c -> {
            try {
                return dev.slidegate.core.CountWhen.parse(c);
            } catch (IllegalArgumentException e) {
                throw fail(prefix + "count-when: " + e.getMessage());
            }
        });
        if (lease.isPresent() && countWhen.isPresent()) {
            throw fail(prefix + "count-when: a policy with max-in-flight counts calls while they run; leave count-when out");
        }
        if (countWhen.isPresent() && (p.settle().orElse(false) || p.refundFailures().isPresent() || usageHeader.isPresent())) {
            throw fail(prefix + "count-when: the policy settles by reported usage too (settle, refund-failures or "
                    + "usage-header); count-when settles each call by its outcome: keep one");
        }
        Optional<Long> blockFor = p.blockFor().map(d -> {
            if (d.isNegative() || d.toNanos() < 1_000_000 || d.compareTo(java.time.Duration.ofDays(1)) > 0) {
                throw fail(prefix + "block-for: '" + d + "' is out of range: expected 1ms to 1d, e.g. 10m");
            }
            return d.toNanos() / 1000;
        });
        Optional<Limit> blockAfter = p.blockAfter().map(text -> {
            Limit l;
            try {
                l = Limit.parse(text.trim());
            } catch (IllegalArgumentException e) {
                throw fail(prefix + "block-after: '" + text + "' is not K/W: expected the refusals that block within a "
                        + "window, e.g. 3/10m");
            }
            if (l.calendar() || l.windowMicros() > 86_400_000_000L) {
                throw fail(prefix + "block-after: '" + text + "' counts refusals within a window of at most 1d, e.g. 3/10m");
            }
            return l;
        });
        Optional<Boolean> usageFromAnswer = p.usageFrom().map(String::trim).map(from -> {
            if (!from.equals("answer")) {
                throw fail(prefix + "usage-from: '" + from + "' is not where a usage is read from: expected answer");
            }
            return true;
        });
        if (usageFromAnswer.isPresent() && p.settle().isPresent() && !p.settle().get()) {
            throw fail(prefix + "usage-from: only a policy that settles reads its usage, and this one says settle=false: "
                    + "remove one of the two");
        }
        if (usageFromAnswer.isPresent() && countWhen.isPresent()) {
            throw fail(prefix + "usage-from: the policy counts calls by their outcome (count-when), not by the usage their "
                    + "answer reports: keep one");
        }
        if (usageFromAnswer.isPresent() && lease.isPresent()) {
            throw fail(prefix + "usage-from: a policy with max-in-flight counts calls running, not what they used");
        }
        if (blockAfter.isPresent() && blockFor.isEmpty()) {
            throw fail(prefix + "block-after: says when a breach blocks the key, and the policy blocks none; set block-for "
                    + "too");
        }
        if (lease.isPresent() && blockFor.isPresent()) {
            throw fail(prefix + "block-for: a policy with max-in-flight refuses while its slots are taken, with no breach "
                    + "to block for; leave block-for out");
        }
        if (costResolver.isPresent() && p.cost().isPresent()) {
            throw fail(prefix + "cost-resolver: the policy sets cost too; keep one (the resolver works out each call's cost)");
        }
        if (lease.isPresent() && costResolver.isPresent()) {
            throw fail(prefix + "cost-resolver: a policy with max-in-flight counts each call once: leave it out");
        }
        return new PolicyMembers(limits, strategy, key, p.countRejected(), p.dryRun(), p.cost(), Map.copyOf(plans),
                p.defaultPlan(),
                p.cells(), failMode, maxWait, Map.copyOf(planMaxWaits), p.outgoing(), unit, p.settle(), p.refundFailures(),
                zone, usageHeader, costResolver, p.partitionKey(), countWhen, blockFor, blockAfter, usageFromAnswer,
                lease.isPresent());
    }

    /**
     * The lease time of a policy with {@code max-in-flight} (µs), empty for a policy that counts calls per window.
     *
     * @throws ConfigurationException when it sets what a concurrency policy cannot have, or a lease without max-in-flight
     */
    private static Optional<Long> inFlight(String prefix, SlidegateConfig.PolicyConfig p) {
        if (p.maxInFlight().isEmpty()) {
            if (p.lease().isPresent()) {
                throw fail(prefix + "lease: only a policy with max-in-flight has leases; set " + prefix + "max-in-flight too");
            }
            return Optional.empty();
        }
        int m = p.maxInFlight().get();
        if (prefix.startsWith("slidegate.defaults.")) {
            throw fail(prefix + "max-in-flight: a concurrency limit is a policy of its own, not a default: set "
                    + "slidegate.policies.<name>.max-in-flight");
        }
        if (m < 1) {
            throw fail(prefix + "max-in-flight: '" + m + "' is not a number of calls: expected at least 1, e.g. 2");
        }
        if (p.limits().isPresent() || p.strategy().isPresent()) {
            throw fail(prefix + "max-in-flight: a policy limits calls in flight or calls per window, not both: remove its "
                    + (p.limits().isPresent() ? "limits" : "strategy") + ", or put them in a policy of their own (a method "
                    + "may carry both)");
        }
        if (p.countRejected().orElse(false)) {
            throw fail(prefix + "count-rejected: a concurrency policy charges no refused call (a refusal holds no slot)");
        }
        java.time.Duration lease = p.lease().orElse(DEFAULT_LEASE);
        if (lease.compareTo(java.time.Duration.ofSeconds(1)) < 0 || lease.compareTo(java.time.Duration.ofDays(1)) > 0) {
            throw fail(prefix + "lease: '" + lease + "' is not a lease time: expected 1s to 1d, e.g. 30s");
        }
        return Optional.of(lease.toNanos() / 1000);
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
