package dev.slidegate.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

import jakarta.enterprise.context.ApplicationScoped;

import dev.slidegate.api.FailMode;
import dev.slidegate.api.Limit;
import dev.slidegate.api.Policy;
import dev.slidegate.api.Strategy;
import io.quarkus.runtime.configuration.ConfigurationException;

/**
 * Turns configuration and annotations into validated {@link Policy} objects.
 *
 * <p>
 * Configuration is parsed once, at construction; an invalid value fails with a
 * {@link ConfigurationException} whose one-line message names the property, the value and what
 * would be valid. A policy defined by an annotation is merged with the configuration of the same name
 * by one rule for every member: <b>the policy's configuration ({@code slidegate.policies.<name>.*}),
 * else what the annotation sets, else {@code slidegate.defaults.*}, else the built-in default</b>.
 * Resolving has no side effect: the service's policies are gathered once, at start-up, in the
 * {@link PolicyCatalog}, which also refuses two different definitions of one name.
 */
@ApplicationScoped
public class PolicyRegistry {

    /**
     * A policy and where its callers' keys come from.
     *
     * @param name the policy's own name (its plans' policies are named {@code <name>.<plan>})
     * @param policy what callers without a plan get (the default plan's policy when one is set)
     * @param key the key source
     * @param plans the policy of each plan, by plan name ({@code <policy>.<plan>}); empty without plans
     * @param cost the permits one call weighs, at least 1 (methods sharing a policy may weigh differently)
     * @param outgoing whether it paces calls this service makes to an upstream (a REST client's, or configured
     *        {@code outgoing}) rather than limiting requests it answers
     * @param settlement whether and how its calls are settled after they ran
     * @param costResolver the name of the {@code CostResolver} bean that works out each call's cost, or {@code null}
     */
    public record Resolved(String name, Policy policy, KeySource key, Map<String, Policy> plans, int cost, boolean outgoing,
            dev.slidegate.core.Settlement settlement, String costResolver, boolean partitionKey, long blockForMicros,
            Policy blockAfter) {

        /**
         * A policy that blocks a caller at its first refusal ({@code blockForMicros} 0: none); {@code blockAfter} (when
         * a key is blocked only at its K-th refusal within W): the refusals' own count, K - 1 per W, asked at each
         * refusal, whose refusal blocks.
         */
        public Resolved(String name, Policy policy, KeySource key, Map<String, Policy> plans, int cost, boolean outgoing,
                dev.slidegate.core.Settlement settlement, String costResolver, boolean partitionKey, long blockForMicros) {
            this(name, policy, key, plans, cost, outgoing, settlement, costResolver, partitionKey, blockForMicros, null);
        }

        /** A policy whose calls cost what {@code cost} says, that names no partition and blocks no caller. */
        public Resolved(String name, Policy policy, KeySource key, Map<String, Policy> plans, int cost, boolean outgoing,
                dev.slidegate.core.Settlement settlement) {
            this(name, policy, key, plans, cost, outgoing, settlement, null, false, 0);
        }

        /** A policy whose calls are not settled. */
        public Resolved(String name, Policy policy, KeySource key, Map<String, Policy> plans, int cost, boolean outgoing) {
            this(name, policy, key, plans, cost, outgoing, dev.slidegate.core.Settlement.OFF);
        }

        /** A policy of requests this service answers. */
        public Resolved(String name, Policy policy, KeySource key, Map<String, Policy> plans, int cost) {
            this(name, policy, key, plans, cost, false);
        }

        /**
         * Whether {@code other} defines the same policy: the same limits, key, plans and direction, whatever its calls
         * cost.
         */
        boolean sameDefinition(Resolved other) {
            return policy.equals(other.policy) && key.equals(other.key) && plans.equals(other.plans)
                    && outgoing == other.outgoing && settlement.equals(other.settlement);
        }

        /** The policy for a caller on {@code plan} ({@code null}: none); an unknown plan gets the default. */
        public Policy forPlan(String plan) {
            Policy p = plan == null ? null : plans.get(plan);
            return p == null ? policy : p;
        }
    }

    /**
     * The members an annotation gives, each possibly unset: empty limits, a blank strategy or key, a
     * {@code null} flag, a cost of 0.
     */
    public record Declared(String name, List<String> limits, String strategy, String key, Boolean countRejected, Boolean dryRun,
            int cost, String maxWait, boolean outgoing, int maxInFlight, String lease, String unit) {

        /** Members of an annotation that names no unit. */
        public Declared(String name, List<String> limits, String strategy, String key, Boolean countRejected, Boolean dryRun,
                int cost, String maxWait, boolean outgoing, int maxInFlight, String lease) {
            this(name, limits, strategy, key, countRejected, dryRun, cost, maxWait, outgoing, maxInFlight, lease, "");
        }

        /** Members of an annotation that sets no concurrency limit. */
        public Declared(String name, List<String> limits, String strategy, String key, Boolean countRejected, Boolean dryRun,
                int cost, String maxWait, boolean outgoing) {
            this(name, limits, strategy, key, countRejected, dryRun, cost, maxWait, outgoing, 0, "");
        }

        /** Members of an annotation on a method of this service (not a REST client's). */
        public Declared(String name, List<String> limits, String strategy, String key, Boolean countRejected, Boolean dryRun,
                int cost, String maxWait) {
            this(name, limits, strategy, key, countRejected, dryRun, cost, maxWait, false);
        }

        /** Members as an annotation that sets no max-wait gives them. */
        public Declared(String name, List<String> limits, String strategy, String key, Boolean countRejected, Boolean dryRun,
                int cost) {
            this(name, limits, strategy, key, countRejected, dryRun, cost, "");
        }

        /** Members as an annotation that sets neither flag nor cost gives them. */
        public Declared(String name, List<String> limits, String strategy, String key) {
            this(name, limits, strategy, key, null, null, 0, "");
        }
    }

    private final Map<String, PolicyMembers> configured = new TreeMap<>();
    /** The limits of a policy's input and output tokens ({@code input-limits}, {@code output-limits}), by policy. */
    private final Map<String, Map<dev.slidegate.core.Settlement.Part, List<Limit>>> tokenParts = new TreeMap<>();
    private final PolicyMembers defaults;
    private final Optional<FailMode> globalFailMode;
    private final List<PolicyMembers.Attachment> attachments = new ArrayList<>();
    /** The plans API keys are listed under ({@code slidegate.plans.api-keys.<plan>}). */
    private final Set<String> apiKeyPlans;

    public PolicyRegistry(SlidegateConfig config) {
        apiKeyPlans = Set.copyOf(config.plans().apiKeys().keySet());
        globalFailMode = config.failMode();
        defaults = PolicyMembers.of("slidegate.defaults.", config.defaults());
        if (defaults.outgoing().isPresent()) {
            throw fail("slidegate.defaults.outgoing: is not a default: a policy paces calls to an upstream when a REST "
                    + "Client interface uses it, or when its own slidegate.policies.<name>.outgoing says so");
        }
        if (config.defaults().inputLimits().isPresent() || config.defaults().outputLimits().isPresent()) {
            throw fail("slidegate.defaults." + (config.defaults().inputLimits().isPresent() ? "input" : "output")
                    + "-limits: is not a default: set it on the policy whose tokens it limits");
        }
        config.policies().forEach((name, p) -> {
            try {
                new Policy(name, List.of(new Limit(1, 1000)), Strategy.SLIDING_LOG, "ip", false);
            } catch (IllegalArgumentException e) {
                throw fail("slidegate.policies." + name + ".*: " + e.getMessage());
            }
            PolicyMembers members = PolicyMembers.of("slidegate.policies." + name + ".", p);
            members.blockAfter().ifPresent(k -> check(() -> refusals(name, k), "slidegate.policies." + name));
            configured.put(name, members);
            keepTokenParts(name, p, members);
            p.paths().ifPresent(paths -> attachments.add(PolicyMembers.attachment(name, paths, p.methods().orElse(List.of()))));
            if (p.paths().isEmpty() && p.methods().isPresent()) {
                throw fail("slidegate.policies." + name + ".methods is set without slidegate.policies." + name
                        + ".paths: say which paths it applies to, e.g. /api/things/*");
            }
        });
    }

    /**
     * Whether policy {@code name} reads a REST client call's usage from the answer ({@code usage-from=answer}, its own or
     * the defaults').
     */
    public boolean usageFromAnswer(String name) {
        PolicyMembers m = configured.get(name);
        return (m == null ? defaults.usageFromAnswer() : m.usageFromAnswer().or(defaults::usageFromAnswer)).orElse(false);
    }

    /** The policies attached to requests by {@code paths} in configuration, in order of policy name. */
    public List<PolicyMembers.Attachment> attachments() {
        return attachments.stream().sorted(java.util.Comparator.comparing(PolicyMembers.Attachment::policy)).toList();
    }

    /** Limits an annotation declares, read by the parser configuration's converter uses. */
    private static List<Limit> parseLimits(List<String> texts, String property) {
        List<Limit> limits = new ArrayList<>();
        for (String t : texts) {
            limits.add(check(() -> Limit.parse(t), property));
        }
        return PolicyMembers.nonEmpty(limits, property);
    }

    private static <T> T check(java.util.function.Supplier<T> parse, String where) {
        try {
            return parse.get();
        } catch (IllegalArgumentException e) {
            throw fail(where + ": " + e.getMessage());
        }
    }

    private static ConfigurationException fail(String message) {
        return new ConfigurationException("Invalid Slidegate configuration: " + message);
    }

    /**
     * Resolves what an annotation at {@code where} ({@code Class#method}) declares, merged with the
     * configuration of the same name.
     *
     * @throws ConfigurationException when the result is incomplete or invalid
     */
    public Resolved resolve(Declared declared, String where) {
        String name = declared.name();
        PolicyMembers cfg = configured.get(name);
        String origin = where + ": @RateLimited";
        // one model for every source: the policy's configuration, else the annotation (where it sets the member), else
        // the defaults, else the built-in default
        PolicyMembers explicit = (cfg == null ? PolicyMembers.NONE : cfg).or(annotated(declared, origin));
        PolicyMembers m = explicit.or(defaults);
        List<Limit> limits = cfg != null && cfg.defaultPlan().isPresent() ? cfg.plans().get(cfg.defaultPlan().get())
                : m.limits().orElseThrow(() -> fail(where + ": @RateLimited(\"" + name
                        + "\") names no configured policy and gives no limits: set slidegate.policies."
                        + name + ".limits or add limits = {\"100/1m\"}; configured policies: " + configured.keySet()));
        boolean inFlight = m.inFlight(); // calls in flight: a primitive, no strategy
        if (inFlight && explicit.strategy().isPresent()) {
            throw fail(origin + ": policy '" + name + "' limits calls in flight (max-in-flight) or calls per window "
                    + "(strategy), not both: a method may carry two @RateLimited, one of each");
        }
        Strategy strategy = inFlight ? null : m.strategy().orElse(Strategy.SLIDING_LOG);
        KeySource key = m.key().orElse(new KeySource.Ip());
        if (declared.outgoing() || cfg == null || !cfg.outgoing().orElse(false)) { // a configured outgoing policy is the API's
            checkKeyFits(key, declared.outgoing(), name, where);
        }
        if (inFlight && explicit.countRejected().orElse(false)) {
            throw fail(origin + "(countRejected): policy '" + name + "' limits calls in flight, where a refusal holds no slot");
        }
        boolean countRejected = !inFlight && m.countRejected().orElse(false); // (a refusal holds no slot)
        boolean dryRun = m.dryRun().orElse(false);
        int cost = m.cost().orElse(1);
        int cells = m.cells().orElse(Policy.DEFAULT_CELLS);
        FailMode failMode = m.failMode().or(() -> globalFailMode)
                .orElse(inFlight ? FailMode.CLOSED : FailMode.LOCAL); // no instance keeps M alone
        long maxWait = m.maxWaitMicros().orElse(0L);
        if (inFlight && explicit.unit().isPresent()) {
            throw fail(origin + ": policy '" + name + "' limits calls in flight, which count calls running "
                    + "(concurrent-requests): leave its unit out");
        }
        String unit = inFlight ? Policy.CONCURRENT_REQUESTS : m.unit().orElse(null);
        java.time.ZoneId zone = m.zone().orElse(java.time.ZoneOffset.UTC);
        List<Limit> zoned = limits.stream().map(l -> l.inZone(zone)).toList(); // calendar periods start in the zone
        Policy own = check(() -> new Policy(name, zoned, strategy, key.spec(), countRejected, dryRun, cells, failMode,
                maxWait, unit), origin);
        Map<String, Policy> plans = new TreeMap<>();
        if (cfg != null) {
            cfg.plans().forEach((plan, planLimits) -> plans.put(plan,
                    check(() -> own.withName(name + "." + plan).withLimits(planLimits)
                            .withMaxWait(cfg.planMaxWaits().getOrDefault(plan, maxWait)), origin)));
        }
        Policy policy = cfg != null && cfg.defaultPlan().isPresent() ? plans.get(cfg.defaultPlan().get()) : own;
        boolean outgoing = declared.outgoing() || m.outgoing().orElse(false); // a REST client's calls go out whatever is set
        // the defaults' cost resolver works out the cost of a policy that sets none of its own
        String costResolver = explicit.costResolver()
                .or(() -> explicit.cost().isPresent() ? Optional.empty() : defaults.costResolver()).orElse(null);
        if (inFlight && costResolver != null) {
            throw fail(origin + ": policy '" + name + "' limits calls in flight, which count each call once: leave "
                    + "cost-resolver out");
        }
        return new Resolved(name, policy, key, Map.copyOf(plans), cost, outgoing, settlement(cfg, name, strategy, origin),
                costResolver, m.partitionKey().orElse(false), inFlight ? 0 : m.blockForMicros().orElse(0L),
                inFlight ? null : check(() -> refusals(name, m.blockAfter().orElse(null)), origin));
    }

    /**
     * The members an annotation sets, read into the model configuration is read into ({@link PolicyMembers}), each
     * parsed as its setting is: limits (or {@code maxInFlight} and {@code lease}, one limit of calls in flight),
     * strategy, key ({@code client} for a REST client's unless it names one), flags, cost, max-wait and unit.
     */
    private static PolicyMembers annotated(Declared d, String origin) {
        if (!d.lease().isBlank() && d.maxInFlight() == 0) {
            throw fail(origin + "(lease): only a concurrency limit has leases: set maxInFlight too");
        }
        Optional<List<Limit>> limits = d.maxInFlight() != 0 ? Optional.of(List.of(declaredInFlight(d, origin)))
                : d.limits().isEmpty() ? Optional.empty() : Optional.of(parseLimits(d.limits(), origin + "(limits)"));
        Optional<Strategy> strategy = d.strategy().isBlank() ? Optional.empty()
                : Optional.of(check(() -> Strategy.parse(d.strategy()), origin + "(strategy)"));
        Optional<KeySource> key = !d.key().isBlank() ? Optional.of(check(() -> KeySource.parse(d.key()), origin + "(key)"))
                : d.outgoing() ? Optional.of(new KeySource.Client()) : Optional.empty();
        if (d.cost() < 0) {
            throw fail(origin + "(cost): '" + d.cost() + "' is not a cost: expected a whole number of permits, at least 1"
                    + " (or 0 to leave it to configuration)");
        }
        Optional<Long> maxWait = d.maxWait().isBlank() ? Optional.empty()
                : Optional.of(declaredMaxWait(d.maxWait(), origin + "(maxWait)"));
        Optional<String> unit = d.unit() == null || d.unit().isBlank() ? Optional.empty()
                : Optional.of(check(() -> Policy.checkUnit(d.unit()), origin + "(unit)"));
        return new PolicyMembers(limits, strategy, key, Optional.ofNullable(d.countRejected()),
                Optional.ofNullable(d.dryRun()), d.cost() > 0 ? Optional.of(d.cost()) : Optional.empty(), Map.of(),
                Optional.empty(), Optional.empty(), Optional.empty(), maxWait, Map.of(),
                d.outgoing() ? Optional.of(true) : Optional.empty(), unit, Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.empty(), d.maxInFlight() != 0);
    }

    /**
     * The count of a policy's refusals that blocks a key at its K-th within W ({@code block-after=K/W}): a sliding log
     * of K - 1 per W under a name no configured policy can have; {@code null} for K = 1 (the first refusal blocks).
     */
    static Policy refusals(String name, Limit blockAfter) {
        if (blockAfter == null || blockAfter.permits() <= 1) {
            return null;
        }
        if (name.length() + REFUSALS.length() > 64) {
            throw new IllegalArgumentException("block-after: the count of the policy's refusals is kept under its name and '"
                    + REFUSALS + "', which makes more than 64 characters: use "
                    + "a shorter policy name");
        }
        return new Policy(name + REFUSALS, List.of(new Limit(blockAfter.permits() - 1, blockAfter.windowMicros())),
                Strategy.SLIDING_LOG, "refusals", false);
    }

    /**
     * Keeps the limits of {@code name}'s input and output tokens, checked: only a policy that reads its usage from the
     * answer has them (the answer is what tells the two apart), and their policies' names must fit.
     */
    private void keepTokenParts(String name, SlidegateConfig.PolicyConfig p, PolicyMembers members) {
        Map<dev.slidegate.core.Settlement.Part, List<Limit>> parts = new java.util.EnumMap<>(
                dev.slidegate.core.Settlement.Part.class);
        p.inputLimits().ifPresent(l -> parts.put(dev.slidegate.core.Settlement.Part.INPUT, l));
        p.outputLimits().ifPresent(l -> parts.put(dev.slidegate.core.Settlement.Part.OUTPUT, l));
        if (parts.isEmpty()) {
            return;
        }
        String first = "slidegate.policies." + name + "." + parts.keySet().iterator().next().setting();
        if (!members.usageFromAnswer().orElse(false)) {
            throw fail(first + ": input and output tokens are told apart by the usage the answer reports: set "
                    + "slidegate.policies." + name + ".usage-from=answer too");
        }
        parts.forEach((part, limits) -> {
            String setting = "slidegate.policies." + name + "." + part.setting();
            if (limits.isEmpty()) {
                throw fail(setting + ": is empty: give limits such as 50000/1m, or leave it out");
            }
            if (name.length() + part.suffix().length() > 64) {
                throw fail(setting + ": the policy's " + part.name().toLowerCase(java.util.Locale.ROOT) + " tokens are "
                        + "counted under its name and '" + part.suffix() + "', which makes more than 64 characters: use a "
                        + "shorter policy name");
            }
        });
        tokenParts.put(name, Map.copyOf(parts));
    }

    /**
     * The policies that count {@code r}'s input and output tokens apart ({@code input-limits}, {@code output-limits}):
     * each named after it ({@code <name>#input}, {@code <name>#output}), with its key, strategy, zone and fail mode, its
     * own limits and unit ({@code slidegate-input-tokens}, {@code slidegate-output-tokens}), settled with its part of the
     * answer's usage.
     * Empty for a policy without them.
     */
    public List<Resolved> tokenParts(Resolved r, String origin) {
        Map<dev.slidegate.core.Settlement.Part, List<Limit>> parts = tokenParts.get(r.name());
        if (parts == null) {
            return List.of();
        }
        List<Resolved> out = new ArrayList<>();
        parts.forEach((part, limits) -> {
            Policy own = r.policy();
            java.time.ZoneId zone = configured.get(r.name()).zone().or(defaults::zone).orElse(java.time.ZoneOffset.UTC);
            List<Limit> zoned = limits.stream().map(l -> l.inZone(zone)).toList();
            Policy counted = check(() -> new Policy(r.name() + part.suffix(), zoned, own.strategy(), own.key(),
                    own.countRejected(), own.dryRun(), own.cells(), own.failMode(), own.maxWaitMicros(),
                    "slidegate-" + part.name().toLowerCase(java.util.Locale.ROOT) + "-"
                            + (own.unit() == null || own.unit().equals(Policy.REQUESTS) ? "tokens" : own.unit())),
                    origin + " (slidegate.policies." + r.name() + "." + part.setting() + ")");
            out.add(new Resolved(counted.name(), counted, r.key(), Map.of(), r.cost(), r.outgoing(),
                    r.settlement().part(part), r.costResolver(), r.partitionKey(), 0));
        });
        return List.copyOf(out);
    }

    /** What follows a policy's name in the name of the count of its refusals ({@link #refusals}). */
    public static final String REFUSALS = "#refusals";

    /** Whether the policy's calls are settled after they ran, checked against its strategy. */
    private dev.slidegate.core.Settlement settlement(PolicyMembers cfg, String name, Strategy strategy, String origin) {
        // the policy's own count-when; else the defaults', unless the policy says how it settles
        Optional<dev.slidegate.core.CountWhen> own = cfg == null ? Optional.empty() : cfg.countWhen();
        Optional<dev.slidegate.core.CountWhen> countWhen = own.isPresent() || (cfg != null && cfg.settle().isPresent()) ? own
                : defaults.countWhen();
        if (countWhen.isPresent()) {
            if (strategy == null || !strategy.settles()) {
                throw fail(origin + ": policy '" + name + "' counts only some calls (count-when), which settles each call "
                        + "when its outcome is known, but " + (strategy == null ? "limits calls in flight"
                                : "counts with " + strategy.configName() + ", which keeps one entry per permit: use "
                                        + Strategy.settlingNames()));
            }
            return dev.slidegate.core.Settlement.countingWhen(countWhen.get());
        }
        // usage-from=answer says how the policy settles: it settles unless it says it does not
        boolean settle = cfg != null && cfg.settle().isPresent() ? cfg.settle().get()
                : (strategy != null && defaults.settle().orElse(false))
                        || (cfg != null && cfg.usageFromAnswer().orElse(false));
        boolean refund = cfg != null && cfg.refundFailures().isPresent() ? cfg.refundFailures().get()
                : defaults.refundFailures().orElse(false);
        if (!settle) {
            if (cfg != null && cfg.usageFromAnswer().isPresent()) {
                throw fail("slidegate.policies." + name + ".usage-from: only a policy that settles reads its usage, and "
                        + "this one says settle=false: remove one of the two");
            }
            if (cfg != null && cfg.refundFailures().orElse(false)) {
                throw fail("slidegate.policies." + name + ".refund-failures: only a policy with settle=true refunds; set "
                        + "slidegate.policies." + name + ".settle=true too");
            }
            if (cfg != null && cfg.usageHeader().isPresent()) {
                throw fail("slidegate.policies." + name + ".usage-header: only a policy with settle=true reads its usage; "
                        + "set slidegate.policies." + name + ".settle=true too");
            }
            return dev.slidegate.core.Settlement.OFF;
        }
        if (strategy == null || !strategy.settles()) {
            throw fail(origin + ": policy '" + name + "' settles its calls (settle=true), but "
                    + (strategy == null ? "limits calls in flight, which have no usage to settle"
                            : "counts with " + strategy.configName() + ", which keeps one entry per permit: use "
                                    + Strategy.settlingNames()));
        }
        String header = cfg != null && cfg.usageHeader().isPresent() ? cfg.usageHeader().get()
                : defaults.usageHeader().orElse(null);
        dev.slidegate.core.Settlement settlement = new dev.slidegate.core.Settlement(true, refund, header);
        return usageFromAnswer(name) ? settlement.readingTheAnswer() : settlement;
    }

    /**
     * An outgoing call's quota is the upstream's: it is keyed by the client, globally, by a resolver or a
     * {@code @RateLimitKey} argument, never by the incoming request (which a call may be made without, and which the
     * response that teaches Slidegate the upstream's limits no longer has); {@code client} is only for REST clients.
     */
    private static void checkKeyFits(KeySource key, boolean outgoing, String name, String where) {
        List<KeySource> parts = key instanceof KeySource.Composite c ? c.parts() : List.of(key);
        for (KeySource part : parts) {
            boolean fromRequest = part instanceof KeySource.Ip || part instanceof KeySource.User
                    || part instanceof KeySource.Header || part instanceof KeySource.Param || part instanceof KeySource.Path;
            if (outgoing && fromRequest) {
                throw fail(where + ": policy '" + name + "' limits calls to an upstream, so it cannot key them by "
                        + part.spec() + " (a request this service answers): use client (the default), global, a @Named "
                        + "KeyResolver bean or a @RateLimitKey parameter (slidegate.policies." + name + ".key)");
            }
            if (!outgoing && part instanceof KeySource.Client) {
                throw fail(where + ": policy '" + name + "' keys callers by client, which names the REST client of an "
                        + "outgoing call: only @RateLimited on a REST Client interface has one; expected "
                        + KeySource.EXPECTED);
            }
        }
    }

    /** An annotation's {@code maxInFlight} and {@code lease}, as the one limit of a concurrency policy. */
    private static Limit declaredInFlight(Declared declared, String origin) {
        if (declared.maxInFlight() < 1) {
            throw fail(origin + "(maxInFlight): '" + declared.maxInFlight()
                    + "' is not a number of calls: expected at least 1, e.g. 2");
        }
        if (!declared.limits().isEmpty() || !declared.strategy().isBlank()) {
            throw fail(origin + ": policy '" + declared.name() + "' limits calls in flight (maxInFlight) or calls per "
                    + "window (" + (declared.limits().isEmpty() ? "strategy" : "limits") + "), not both: a method may carry "
                    + "two @RateLimited, one of each");
        }
        java.time.Duration lease = PolicyMembers.DEFAULT_LEASE;
        if (!declared.lease().isBlank()) {
            try {
                lease = io.quarkus.runtime.configuration.DurationConverter.parseDuration(declared.lease().trim());
            } catch (RuntimeException e) {
                lease = null;
            }
            if (lease == null || lease.compareTo(java.time.Duration.ofSeconds(1)) < 0
                    || lease.compareTo(java.time.Duration.ofDays(1)) > 0) {
                throw fail(origin + "(lease): '" + declared.lease() + "' is not a lease time: expected 1s to 1d, e.g. 30s");
            }
        }
        return new Limit(declared.maxInFlight(), lease.toNanos() / 1000);
    }

    /** An annotation's {@code maxWait}: a duration as configuration writes one ({@code 2s}, {@code 500ms}, {@code PT2S}). */
    private static long declaredMaxWait(String text, String where) {
        java.time.Duration d;
        try {
            d = io.quarkus.runtime.configuration.DurationConverter.parseDuration(text.trim());
        } catch (RuntimeException e) { // DateTimeParseException or IllegalArgumentException, by the text's form
            throw fail(where + ": '" + text + "' is not a duration: expected e.g. 2s, 500ms or 0");
        }
        return PolicyMembers.maxWaitMicros(d == null ? java.time.Duration.ZERO : d, where);
    }

    /** The names of the policies configured under {@code slidegate.policies.<name>.*}. */
    Set<String> configuredNames() {
        return configured.keySet();
    }

    /** Every plan of a configured policy. */
    Set<String> configuredPlans() {
        Set<String> plans = new java.util.TreeSet<>();
        configured.values().forEach(o -> plans.addAll(o.plans().keySet()));
        return plans;
    }

    /** The plans API keys are listed under. */
    Set<String> apiKeyPlans() {
        return apiKeyPlans;
    }

    /**
     * The configured policy {@code name} as no annotation completes it: its configuration, else the defaults.
     *
     * @throws ConfigurationException when it has no limits of its own, no default plan and no default limits
     */
    Resolved configuredAlone(String name) {
        PolicyMembers o = configured.get(name);
        if (o.limits().isEmpty() && o.defaultPlan().isEmpty() && defaults.limits().isEmpty()) {
            throw fail("slidegate.policies." + name + ".limits is missing: expected " + Limit.EXPECTED);
        }
        return resolve(new Declared(name, List.of(), "", ""), "slidegate.policies." + name);
    }
}
