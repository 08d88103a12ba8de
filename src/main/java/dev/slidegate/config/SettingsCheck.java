package dev.slidegate.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

import org.eclipse.microprofile.config.Config;

import io.quarkus.runtime.configuration.ConfigurationException;

/**
 * The settings under {@code slidegate.} that a typo must not turn into an unlimited or unprotected
 * service, checked before anything is built from them: a boolean other than {@code true}/{@code false}
 * (SmallRye reads {@code ture} as {@code false}, which would switch every limit off), a time of zero or
 * less, and a size of zero or less where zero means nothing. Each failure is one sentence naming the
 * property and what it accepts. (A name under {@code slidegate.} that Slidegate does not read, such as
 * {@code slidegate.polices.login.limits}, is refused by Quarkus itself before this runs: it "does not
 * map to any root".)
 */
public final class SettingsCheck {

    /** A policy's or the defaults' prefix (a policy name holding a dot is quoted, as SmallRye maps keys). */
    private static final String POLICY = "slidegate\\.(policies\\.(\"[^\"]+\"|[^.\"]+)|defaults)\\.";

    private static final List<Pattern> BOOLEANS = List.of(
            names("slidegate\\.(enabled|admin\\.enabled|http\\.trust-every-address)"),
            names(POLICY + "(count-rejected|dry-run)"));

    private SettingsCheck() {
    }

    private static Pattern names(String regex) {
        return Pattern.compile(regex);
    }

    /**
     * @throws ConfigurationException naming the first setting that is wrong
     */
    public static void check(Config config, SlidegateConfig slidegate) {
        java.util.Set<String> found = new java.util.TreeSet<>();
        for (org.eclipse.microprofile.config.spi.ConfigSource source : config.getConfigSources()) {
            // environment variables are left out: SLIDEGATE_POLICIES_MY_POLICY_DRY_RUN cannot say where a
            // policy name with a dash ends (SmallRye maps them to the mapping's names itself)
            if (source.getClass().getSimpleName().contains("Env")) {
                continue;
            }
            for (String name : source.getPropertyNames()) {
                if (name.startsWith("slidegate.")) {
                    found.add(name);
                }
            }
        }
        List<String> names = new ArrayList<>(found);
        for (String name : names) {
            if (BOOLEANS.stream().anyMatch(p -> p.matcher(name).matches())) {
                String raw = config.getConfigValue(name).getValue();
                String value = raw == null ? "" : raw.trim().toLowerCase(Locale.ROOT);
                if (!value.equals("true") && !value.equals("false")) {
                    throw fail(name + ": '" + raw + "' is not a boolean: expected true or false");
                }
            }
        }
        positive("slidegate.redis.timeout", slidegate.redis().timeout());
        positive("slidegate.redis.late-limit", slidegate.redis().lateLimit());
        positive("slidegate.redis.cool-down", slidegate.redis().coolDown());
        positive("slidegate.overrides.refresh", slidegate.overrides().refresh());
        positive("slidegate.http.header-timeout", slidegate.http().headerTimeout());
        atLeast("slidegate.memory.max-keys", slidegate.memory().maxKeys(), 1, "the most keys kept in process, e.g. 100000");
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
