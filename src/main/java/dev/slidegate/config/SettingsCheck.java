package dev.slidegate.config;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import org.eclipse.microprofile.config.Config;

import io.quarkus.runtime.configuration.ConfigurationException;

/**
 * The settings under {@code slidegate.} that a typo must not turn into an unlimited or unprotected service, checked
 * before anything is built from them, in every form they are given (a property, a system property, an environment
 * variable, {@code .env}): a boolean other than {@code true}/{@code false} (SmallRye reads {@code ture} as
 * {@code false}, which would switch every limit off, and {@code yes} as {@code true}), a time of zero or less, a size
 * of zero or less where zero means nothing, and an environment variable under {@code SLIDEGATE_} that is no setting
 * Slidegate reads ({@code SLIDEGATE_POLICES_LOGIN_LIMITS}, {@code SLIDEGATE_POLICIES_LOGIN_LIMIT}). Each failure is one
 * sentence naming the setting and what it accepts. (A property under {@code slidegate.} that Slidegate does not read,
 * such as {@code slidegate.polices.login.limits}, is refused by Quarkus itself before this runs: it "does not map to any
 * root"; Quarkus does not check environment variables so.)
 */
public final class SettingsCheck {

    /** A time between {@code least} and {@code most}, or one sentence naming the setting. */
    private static void within(String name, java.time.Duration value, java.time.Duration least, java.time.Duration most,
            String example) {
        if (value.compareTo(least) < 0 || value.compareTo(most) > 0) {
            throw fail(name + ": '" + dev.slidegate.api.Limit.durationText(value.toMillis()) + "' is out of range: expected "
                    + (least.isZero() ? "0" : dev.slidegate.api.Limit.durationText(least.toMillis())) + " to "
                    + dev.slidegate.api.Limit.durationText(most.toMillis()) + ", " + example);
        }
    }

    /**
     * What a setting holds, as its declaration in {@link SlidegateConfig} types it ({@link #SETTINGS}): what its raw value,
     * from any source, must look like.
     */
    enum Kind {
        /** {@code true} or {@code false}, any case; never empty. */
        BOOLEAN("true or false"),
        /** A duration ({@code 250ms}, {@code 1s}); never empty (its converter reads the rest). */
        TIME("a time such as 250ms or 1s"),
        /** A whole number; never empty. */
        NUMBER("a whole number"),
        /** A value of a fixed set (a strategy, a fail mode, the store); never empty. */
        CHOICE("one of the values the setting names in docs/configuration.md"),
        /** A time zone, an IANA name; never empty. */
        ZONE("a time zone such as Europe/Paris or UTC"),
        /** Text, a list or a limit: read by its own converter or check. */
        TEXT(null);

        final String expected;

        Kind(String expected) {
            this.expected = expected;
        }
    }

    /**
     * Every setting of {@link SlidegateConfig} with its kind, {@code *} standing for a name (a policy, a plan), derived
     * from the declarations themselves: SmallRye's view of the mapping, names and types. A setting added there is checked
     * here with nothing else to keep.
     */
    static final Map<String, Kind> SETTINGS = derived();

    private static Map<String, Kind> derived() {
        Map<String, Kind> all = new java.util.TreeMap<>();
        io.smallrye.config.ConfigMappings
                .getProperties(io.smallrye.config.ConfigMappings.ConfigClass.configClass(SlidegateConfig.class, "slidegate"))
                .forEach((name, property) -> {
                    if (!name.endsWith("[*]")) { // (a list's elements: checked as the list)
                        all.put(name, kindOf(property));
                    }
                });
        return java.util.Collections.unmodifiableMap(all);
    }

    /** The kind a declaration gives a setting: by the type it converts to. */
    private static Kind kindOf(io.smallrye.config.ConfigMappingInterface.Property property) {
        io.smallrye.config.ConfigMappingInterface.Property p = property.isOptional()
                ? property.asOptional().getNestedProperty()
                : property;
        if (p.isCollection() || p.isMap()) {
            return Kind.TEXT;
        }
        Class<?> type = p.isPrimitive() ? p.asPrimitive().getBoxType() : declared(property.getMethod());
        if (type == Boolean.class) {
            return Kind.BOOLEAN;
        } else if (type == Duration.class) {
            return Kind.TIME;
        } else if (type == Integer.class || type == Long.class) {
            return Kind.NUMBER;
        } else if (type.isEnum()) {
            return Kind.CHOICE;
        } else if (type == java.time.ZoneId.class) {
            return Kind.ZONE;
        }
        return Kind.TEXT;
    }

    /** The type a mapping method returns, inside its {@code Optional}. */
    private static Class<?> declared(java.lang.reflect.Method m) {
        java.lang.reflect.Type t = m.getGenericReturnType();
        if (t instanceof java.lang.reflect.ParameterizedType pt && pt.getRawType() == java.util.Optional.class) {
            t = pt.getActualTypeArguments()[0];
        }
        return t instanceof Class<?> c ? c : Object.class;
    }

    private SettingsCheck() {
    }

    /** The configuration {@link #checkOnce} checked last: a start-up checks it once, whoever asks first. */
    private static volatile SlidegateConfig checked;

    /**
     * {@link #check}, unless this very configuration was checked already: the store's producer and the start-up observer
     * both ask, and a start-up pays for one check.
     */
    public static void checkOnce(Config config, SlidegateConfig slidegate) {
        if (checked != slidegate) {
            check(config, slidegate);
            checked = slidegate;
        }
    }

    /**
     * @throws ConfigurationException naming the first setting that is wrong
     */
    public static void check(Config config, SlidegateConfig slidegate) {
        Map<String, Kind> known = concrete(slidegate);
        known.forEach((name, kind) -> checkRaw(config, name, kind)); // looked up, not listed: a source may list no names
        List<String> fromEnvironment = new java.util.ArrayList<>();
        for (org.eclipse.microprofile.config.spi.ConfigSource source : config.getConfigSources()) {
            if (source instanceof io.smallrye.config.EnvConfigSource) {
                for (String name : source.getPropertyNames()) {
                    if (name.startsWith("SLIDEGATE_")) {
                        fromEnvironment.add(name);
                    }
                }
            }
        }
        if (!fromEnvironment.isEmpty()) {
            Set<String> environment = new java.util.HashSet<>();
            known.keySet().forEach(n -> environment.add(environmentName(n)));
            for (String name : new java.util.TreeSet<>(fromEnvironment)) {
                if (!environment.contains(LIST_INDEX.matcher(name).replaceFirst(""))) {
                    throw fail(name + " (an environment variable) is no Slidegate setting: under SLIDEGATE_ only the "
                            + "environment form of a slidegate.* property is read, such as SLIDEGATE_POLICIES_<NAME>_LIMITS for "
                            + "slidegate.policies.<name>.limits; a policy or plan whose name holds '-' or '.' must also be "
                            + "named in a property (slidegate.policies.my-policy.limits=...), since the environment cannot "
                            + "say where its name ends");
                }
            }
        }
        positive("slidegate.redis.timeout", slidegate.redis().timeout());
        positive("slidegate.redis.late-limit", slidegate.redis().lateLimit());
        positive("slidegate.redis.cool-down", slidegate.redis().coolDown());
        positive("slidegate.overrides.refresh", slidegate.overrides().refresh());
        slidegate.http().headerTimeout().filter(Duration::isNegative).ifPresent(t -> {
            throw fail("slidegate.http.header-timeout: '" + t.toMillis()
                    + "ms' is not a time: expected 0 (off) or more, e.g. 10s");
        });
        oneOf("slidegate.log.redact", slidegate.log().redact(), "slidegate", "all");
        oneOf("slidegate.http.problem-bodies", slidegate.http().problemBodies(), "slidegate", "all");
        oneOf("slidegate.rls.headers", slidegate.rls().headers(), "ietf", "x-ratelimit", "none");
        if (slidegate.rls().port() < 0 || slidegate.rls().port() > 65535) {
            throw fail("slidegate.rls.port: '" + slidegate.rls().port() + "' is not a port: expected 0 (any free one) to "
                    + "65535, e.g. 9081");
        }
        String root = slidegate.admin().rootPath();
        if (!root.matches("(/[A-Za-z0-9._~-]+)+") || root.matches(".*/\\.{1,2}(/.*)?")) {
            throw fail("slidegate.admin.root-path: '" + root + "' is not a path: expected a path starting with '/', of "
                    + "letters, digits and . _ ~ - between slashes, not '/' alone, e.g. /q/slidegate or /admin");
        }
        if (slidegate.admin().role().isBlank()) {
            throw fail("slidegate.admin.role: is empty: expected the role a caller needs for the admin, e.g. slidegate-admin");
        }
        if (slidegate.redis().client().isBlank()) {
            throw fail("slidegate.redis.client: is empty: expected slidegate, <default> or the name of a Redis client");
        }
        atLeast("slidegate.memory.max-keys", slidegate.memory().maxKeys(), 1, "the most keys kept in process, e.g. 100000");
        atLeast("slidegate.overrides.max", slidegate.overrides().max(), 1, "the most overrides kept, e.g. 10000");
        atLeast("slidegate.wait.max-waiting", slidegate.waits().maxWaiting(), 0,
                "0 (no call waits) or the most calls this instance holds waiting, e.g. 10000");
        atLeast("slidegate.wait.max-waiting-per-key", slidegate.waits().maxWaitingPerKey(), 0,
                "0 (no call waits) or the most calls of one key held waiting, e.g. 1000");
        java.time.Duration tolerance = slidegate.waits().lateTolerance();
        if (tolerance.isNegative() || tolerance.compareTo(java.time.Duration.ofMinutes(1)) > 0) {
            throw fail("slidegate.wait.late-tolerance: '" + tolerance + "' is out of range: expected 0 to 1m, e.g. 50ms");
        }
        try {
            dev.slidegate.core.UpstreamHeaders.Form.parse(slidegate.upstream().forms());
        } catch (IllegalArgumentException e) {
            throw fail("slidegate.upstream.forms: " + e.getMessage());
        }
        within("slidegate.upstream.ceiling", slidegate.upstream().ceiling(), java.time.Duration.ofSeconds(1),
                java.time.Duration.ofDays(1), "e.g. 5m");
        within("slidegate.upstream.pause-without-retry-after", slidegate.upstream().pauseWithoutRetryAfter(),
                java.time.Duration.ofMillis(1), slidegate.upstream().ceiling(), "e.g. 1s, at most slidegate.upstream.ceiling");
        within("slidegate.upstream.margin", slidegate.upstream().margin(), java.time.Duration.ZERO,
                java.time.Duration.ofMinutes(1),
                "e.g. 50ms");
        within("slidegate.upstream.learned-refresh", slidegate.upstream().learnedRefresh(), java.time.Duration.ofMillis(1),
                slidegate.upstream().ceiling(), "e.g. 1s, at most slidegate.upstream.ceiling");
        atLeast("slidegate.upstream.max-keys", slidegate.upstream().maxKeys(), 1,
                "the most keys whose learned limits are kept, "
                        + "e.g. 10000");
        atLeast("slidegate.redis.refusal-cache-size", slidegate.redis().refusalCacheSize(), 0,
                "0 (off) or the refusals each instance remembers, e.g. 100000");
        atLeast("slidegate.redis.failure-threshold", slidegate.redis().failureThreshold(), 1,
                "failed decisions in a row before Redis is skipped, e.g. 3");
        int batch = slidegate.redis().batchSize();
        if (batch < 1 || batch > dev.slidegate.redis.RedisStore.MAX_BATCH) {
            throw fail("slidegate.redis.batch-size: '" + batch + "' is out of range: between 1 (each decision on its own) and "
                    + dev.slidegate.redis.RedisStore.MAX_BATCH);
        }
        if (slidegate.fallback().instances().isPresent()) {
            atLeast("slidegate.fallback.instances", slidegate.fallback().instances().get(), 1,
                    "how many instances share the limits, e.g. 3");
        }
    }

    /** An element of a list given one by one: {@code SLIDEGATE_POLICIES_LOGIN_LIMITS_0_}. */
    private static final Pattern LIST_INDEX = Pattern.compile("_[0-9]+_$");

    /**
     * The raw value of one setting, as given in whatever source, against its kind: a boolean other than true or false
     * (SmallRye reads {@code ture} as false), and an empty value where the kind has no empty meaning (SmallRye reads an
     * empty value as none given, so {@code SLIDEGATE_POLICIES_BILLING_ZONE=} started in UTC) are refused.
     */
    private static void checkRaw(Config config, String name, Kind kind) {
        if (kind == Kind.TEXT) {
            return;
        }
        String raw = config.getConfigValue(name).getRawValue();
        if (raw == null) {
            return;
        }
        String value = raw.trim();
        if (value.isEmpty()) {
            throw fail(name + where(config, name) + ": is empty: expected " + kind.expected
                    + ", or the setting left out for its default");
        }
        if (kind == Kind.BOOLEAN && !value.equalsIgnoreCase("true") && !value.equalsIgnoreCase("false")) {
            throw fail(name + where(config, name) + ": '" + raw + "' is not a boolean: expected true or false");
        }
        if (kind == Kind.ZONE) {
            try {
                java.time.ZoneId.of(value);
            } catch (java.time.DateTimeException e) {
                throw fail(name + where(config, name) + ": '" + raw + "' is not a time zone: expected " + kind.expected);
            }
        }
    }

    /** Every setting that can be given, with the names of the policies and plans this configuration has, and its kind. */
    static Map<String, Kind> concrete(SlidegateConfig slidegate) {
        Map<String, Kind> names = new LinkedHashMap<>();
        for (Map.Entry<String, Kind> entry : SETTINGS.entrySet()) {
            String setting = entry.getKey();
            Kind kind = entry.getValue();
            if (setting.startsWith("slidegate.policies.*.plans.*.")) {
                slidegate.policies().forEach((policy, p) -> p.plans().keySet().forEach(
                        plan -> names.put("slidegate.policies." + quoted(policy) + ".plans." + quoted(plan)
                                + setting.substring(setting.lastIndexOf('.')), kind)));
            } else if (setting.startsWith("slidegate.policies.*.")) {
                slidegate.policies().keySet().forEach(
                        policy -> names.put(
                                setting.replace("slidegate.policies.*.", "slidegate.policies." + quoted(policy) + "."), kind));
            } else if (setting.startsWith("slidegate.defaults.plans.*.")) {
                slidegate.defaults().plans().keySet()
                        .forEach(plan -> names.put("slidegate.defaults.plans." + quoted(plan)
                                + setting.substring(setting.lastIndexOf('.')), kind));
            } else if (setting.equals("slidegate.plans.api-keys.*")) {
                slidegate.plans().apiKeys().keySet()
                        .forEach(plan -> names.put("slidegate.plans.api-keys." + quoted(plan), kind));
            } else {
                names.put(setting, kind);
            }
        }
        return names;
    }

    /** A name as one segment of a property: quoted when it holds a dot, as SmallRye writes map keys. */
    static String quoted(String name) {
        return name.indexOf('.') >= 0 ? "\"" + name + "\"" : name;
    }

    /** The environment variable of a property, as SmallRye reads it: every character but letters and digits an underscore. */
    static String environmentName(String property) {
        StringBuilder env = new StringBuilder(property.length());
        for (int i = 0; i < property.length(); i++) {
            char c = property.charAt(i);
            env.append((c >= 'a' && c <= 'z') ? (char) (c - 32) : (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ? c : '_');
        }
        return env.toString();
    }

    /** Where a setting was given, when it was not a property file: {@code " (environment variable X)"}. */
    private static String where(Config config, String name) {
        org.eclipse.microprofile.config.ConfigValue value = config.getConfigValue(name);
        String source = value.getSourceName() == null ? "" : value.getSourceName();
        return source.contains("EnvConfigSource") ? " (environment variable " + environmentName(name) + ")" : "";
    }

    private static void oneOf(String name, String value, String... allowed) {
        if (!List.of(allowed).contains(value.trim())) {
            throw fail(name + ": '" + value + "' is not known: expected " + String.join(" or ", allowed));
        }
    }

    private static void positive(String name, Duration value) {
        if (value.isZero() || value.isNegative()) {
            throw fail(name + ": '" + value.toMillis() + "ms' is not a time: expected more than zero, e.g. 250ms");
        }
    }

    private static void atLeast(String name, int value, int least, String expected) {
        if (value < least) {
            throw fail(name + ": '" + value + "' is out of range: expected " + expected);
        }
    }

    private static ConfigurationException fail(String message) {
        return new ConfigurationException("Invalid Slidegate configuration: " + message);
    }
}
