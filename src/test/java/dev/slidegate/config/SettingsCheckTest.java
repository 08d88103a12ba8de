package dev.slidegate.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import dev.slidegate.testing.TestConfigs;
import io.quarkus.runtime.configuration.ConfigurationException;
import io.smallrye.config.SmallRyeConfig;

/** Settings that a typo would turn into an unlimited or unprotected service stop the start-up with one sentence. */
class SettingsCheckTest {

    private static void check(Map<String, String> properties) {
        SmallRyeConfig config = TestConfigs.config(properties);
        SettingsCheck.check(config, config.getConfigMapping(SlidegateConfig.class));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "slidegate.enabled | ture | slidegate.enabled: 'ture' is not a boolean: expected true or false",
            "slidegate.enabled | yes | slidegate.enabled: 'yes' is not a boolean",
            "slidegate.admin.enabled | 1 | slidegate.admin.enabled: '1' is not a boolean",
            "slidegate.policies.login.count-rejected | flase | slidegate.policies.login.count-rejected: 'flase' is not a boolean",
            "slidegate.defaults.dry-run | no | slidegate.defaults.dry-run: 'no' is not a boolean",
            "slidegate.redis.timeout | 0ms | slidegate.redis.timeout: '0ms' is not a time: expected more than zero",
            "slidegate.redis.late-limit | 0s | slidegate.redis.late-limit: '0ms' is not a time",
            "slidegate.redis.cool-down | -1s | slidegate.redis.cool-down: '-1000ms' is not a time",
            "slidegate.overrides.refresh | 0s | slidegate.overrides.refresh: '0ms' is not a time",
            "slidegate.http.header-timeout | -1s | slidegate.http.header-timeout: '-1000ms' is not a time: expected 0 (off)",
            "slidegate.log.redact | every | slidegate.log.redact: 'every' is not known: expected slidegate or all",
            "slidegate.http.problem-bodies | none | slidegate.http.problem-bodies: 'none' is not known",
            "slidegate.admin.root-path | admin | slidegate.admin.root-path: 'admin' is not a path",
            "slidegate.admin.root-path | / | slidegate.admin.root-path: '/' is not a path",
            "slidegate.admin.root-path | /a/../b | slidegate.admin.root-path: '/a/../b' is not a path",
            "slidegate.admin.root-path | /admin/ | slidegate.admin.root-path: '/admin/' is not a path",
            "slidegate.admin.role | ' ' | slidegate.admin.role: is empty",
            "slidegate.memory.max-keys | 0 | slidegate.memory.max-keys: '0' is out of range: expected the most keys kept in process",
            "slidegate.overrides.max | 0 | slidegate.overrides.max: '0' is out of range: expected the most overrides kept",
            "slidegate.redis.refusal-cache-size | -1 | slidegate.redis.refusal-cache-size: '-1' is out of range",
            "slidegate.redis.failure-threshold | 0 | slidegate.redis.failure-threshold: '0' is out of range",
            "slidegate.fallback.instances | 0 | slidegate.fallback.instances: '0' is out of range",
            "slidegate.upstream.forms | ietf,http | slidegate.upstream.forms: 'http' is not a form of upstream header fields",
            "slidegate.upstream.forms | none,llm | slidegate.upstream.forms: 'none' is not a form of upstream header fields",
            "slidegate.upstream.ceiling | 2d | slidegate.upstream.ceiling: '2d' is out of range: expected 1s to 1d",
            "slidegate.upstream.margin | -5ms | slidegate.upstream.margin: '-5ms' is out of range: expected 0 to 1m",
            "slidegate.upstream.pause-without-retry-after | 10m | slidegate.upstream.pause-without-retry-after: '10m' is out of range: expected 1ms to 5m",
            "slidegate.upstream.learned-refresh | 10m | slidegate.upstream.learned-refresh: '10m' is out of range: expected 1ms to 5m",
            "slidegate.upstream.max-keys | 0 | slidegate.upstream.max-keys: '0' is out of range" })
    void aMistypedSettingStopsTheStartUpNamingIt(String name, String value, String expected) {
        Map<String, String> properties = new HashMap<>(Map.of("slidegate.policies.login.limits", "5/1m"));
        properties.put(name, value);
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> check(properties));
        assertEquals(true, e.getMessage().startsWith("Invalid Slidegate configuration: " + expected), e.getMessage());
    }

    // a property of the active profile is read under its plain name, and checked as one
    @Test
    void aSettingOfTheActiveProfileIsCheckedToo() {
        SmallRyeConfig config = new io.smallrye.config.SmallRyeConfigBuilder().withMapping(SlidegateConfig.class)
                .withValidateUnknown(false).withProfile("prod")
                .withConverter(java.time.Duration.class, 100, new io.quarkus.runtime.configuration.DurationConverter())
                .withSources(new io.smallrye.config.PropertiesConfigSource(
                        Map.of("%prod.slidegate.enabled", "ture", "%dev.slidegate.admin.enabled", "1"), "test", 250))
                .build();
        ConfigurationException e = assertThrows(ConfigurationException.class,
                () -> SettingsCheck.check(config, config.getConfigMapping(SlidegateConfig.class)));
        assertEquals("Invalid Slidegate configuration: slidegate.enabled: 'ture' is not a boolean: expected true or false",
                e.getMessage());
    }

    @Test
    void everySettingSlidegateReadsIsAccepted() {
        Map<String, String> all = new HashMap<>();
        all.put("slidegate.enabled", "TRUE");
        all.put("slidegate.store", "memory");
        all.put("slidegate.fail-mode", "local");
        all.put("slidegate.admin.enabled", "false");
        all.put("slidegate.fallback.instances", "3");
        all.put("slidegate.http.trusted-proxies", "10.0.0.0/8");
        all.put("slidegate.http.ipv6-prefix", "64");
        all.put("slidegate.http.header-timeout", "30s");
        all.put("slidegate.http.problem-bodies", "all");
        all.put("slidegate.log.redact", "all");
        all.put("slidegate.admin.root-path", "/ops/rate-limits.v2");
        all.put("slidegate.admin.role", "ops");
        all.put("slidegate.redis.client", "<default>");
        all.put("slidegate.http.trust-every-address", "false");
        all.put("slidegate.memory.max-keys", "1");
        all.put("slidegate.redis.timeout", "1ms");
        all.put("slidegate.redis.late-limit", "2s");
        all.put("slidegate.redis.refusal-cache-size", "0");
        all.put("slidegate.redis.batch-size", "1");
        all.put("slidegate.redis.failure-threshold", "1");
        all.put("slidegate.redis.cool-down", "1s");
        all.put("slidegate.overrides.refresh", "10s");
        all.put("slidegate.overrides.max", "1");
        for (String field : new String[] { "limits", "strategy", "key", "count-rejected", "dry-run", "cells", "fail-mode",
                "cost", "default-plan", "paths", "methods" }) {
            String value = switch (field) {
                case "count-rejected", "dry-run" -> "true";
                case "limits" -> "5/1m";
                case "cells", "cost" -> "2";
                case "strategy" -> "fixed-window";
                case "key" -> "header:X-Tenant";
                case "fail-mode" -> "open";
                default -> "x";
            };
            all.put("slidegate.policies.login." + field, value);
            all.put("slidegate.defaults." + field, value);
        }
        all.put("slidegate.policies.\"a.b\".limits", "5/1m");
        all.put("slidegate.policies.reports.plans.pro.limits", "5/1m");
        all.put("slidegate.defaults.plans.pro.limits", "5/1m");
        all.put("slidegate.plans.header", "X-Api-Key");
        all.put("slidegate.plans.api-keys.pro", "k1,k2");
        check(all); // nothing thrown
    }

    private static ConfigurationException refusedWith(Map<String, String> properties, Map<String, String> environment) {
        SmallRyeConfig config = TestConfigs.config(properties, environment);
        return assertThrows(ConfigurationException.class,
                () -> SettingsCheck.check(config, config.getConfigMapping(SlidegateConfig.class)));
    }

    // a boolean given as an environment variable gets the same check and sentence as a property: SmallRye reads
    // 'ture' as false (counting refused attempts off) and 'yes' as true (dry run on)
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "SLIDEGATE_POLICIES_PRODUCTS_COUNT_REJECTED | ture | slidegate.policies.products.count-rejected (environment variable SLIDEGATE_POLICIES_PRODUCTS_COUNT_REJECTED): 'ture' is not a boolean: expected true or false",
            "SLIDEGATE_POLICIES_PRODUCTS_DRY_RUN | yes | slidegate.policies.products.dry-run (environment variable SLIDEGATE_POLICIES_PRODUCTS_DRY_RUN): 'yes' is not a boolean",
            "SLIDEGATE_ENABLED | 0 | slidegate.enabled (environment variable SLIDEGATE_ENABLED): '0' is not a boolean",
            "SLIDEGATE_DEFAULTS_DRY_RUN | on | slidegate.defaults.dry-run (environment variable SLIDEGATE_DEFAULTS_DRY_RUN): 'on' is not a boolean" })
    void aMistypedBooleanInTheEnvironmentStopsTheStartUp(String variable, String value, String expected) {
        ConfigurationException e = refusedWith(Map.of("slidegate.policies.products.limits", "5/1m"), Map.of(variable, value));
        assertEquals("Invalid Slidegate configuration: " + expected,
                e.getMessage().substring(0, Math.min(e.getMessage().length(),
                        ("Invalid Slidegate configuration: " + expected).length())),
                e.getMessage());
    }

    // an environment variable under SLIDEGATE_ that is no setting is refused by name: misspelled, or naming a policy
    // whose name the environment cannot delimit (my-policy, only in the environment, was simply never applied)
    @ParameterizedTest
    @CsvSource({ "SLIDEGATE_POLICES_PRODUCTS_LIMITS", "SLIDEGATE_POLICIES_PRODUCTS_LIMIT",
            "SLIDEGATE_POLICIES_MY_POLICY_LIMITS",
            "SLIDEGATE_REDIS_TIMEOUTS", "SLIDEGATE_POLICIES_PRODUCTS_PLANS_GOLD_LIMIT" })
    void anEnvironmentVariableThatIsNoSettingStopsTheStartUp(String variable) {
        ConfigurationException e = refusedWith(Map.of("slidegate.policies.products.limits", "5/1m"), Map.of(variable, "1/1s"));
        assertTrue(e.getMessage().startsWith("Invalid Slidegate configuration: " + variable
                + " (an environment variable) is no Slidegate setting"), e.getMessage());
    }

    // every setting in its environment form is read: a policy named only there (one word), a policy with a dash that a
    // property names too, a list element, a plan, the API keys of a plan
    @Test
    void everySettingIsAcceptedFromTheEnvironment() {
        Map<String, String> environment = Map.of("SLIDEGATE_ENABLED", "TRUE", "SLIDEGATE_REDIS_TIMEOUT", "300ms",
                "SLIDEGATE_POLICIES_EXPORTS_LIMITS", "7/1m", "SLIDEGATE_POLICIES_MY_POLICY_DRY_RUN", "false",
                "SLIDEGATE_POLICIES_PRODUCTS_LIMITS_0_", "9/1m", "SLIDEGATE_POLICIES_PRODUCTS_PLANS_GOLD_LIMITS", "90/1m",
                "SLIDEGATE_PLANS_API_KEYS_GOLD", "k1,k2");
        SmallRyeConfig config = TestConfigs.config(
                Map.of("slidegate.policies.products.limits", "5/1m", "slidegate.policies.my-policy.limits", "1/1s"),
                environment);
        SlidegateConfig slidegate = config.getConfigMapping(SlidegateConfig.class);
        SettingsCheck.check(config, slidegate);
        assertEquals(java.util.Optional.of(List.of(dev.slidegate.api.Limit.parse("7/1m"))),
                slidegate.policies().get("exports").limits());
        assertEquals(java.util.Optional.of(false), slidegate.policies().get("my-policy").dryRun());
    }

    // the settings this check knows are derived from the mapping's declarations, each of the kind its type gives it
    // (issue 56: a hand-kept list of booleans missed settle, outgoing, refund-failures and spread; issue 57: the list is
    // gone, so none can be missed)
    @Test
    void theCheckKnowsEverySettingOfTheMappingAndItsType() {
        Map<String, SettingsCheck.Kind> known = SettingsCheck.SETTINGS;
        Map<String, SettingsCheck.Kind> expected = Map.ofEntries(
                Map.entry("slidegate.enabled", SettingsCheck.Kind.BOOLEAN),
                Map.entry("slidegate.upstream.spread", SettingsCheck.Kind.BOOLEAN),
                Map.entry("slidegate.policies.*.settle", SettingsCheck.Kind.BOOLEAN),
                Map.entry("slidegate.policies.*.outgoing", SettingsCheck.Kind.BOOLEAN),
                Map.entry("slidegate.policies.*.refund-failures", SettingsCheck.Kind.BOOLEAN),
                Map.entry("slidegate.defaults.count-rejected", SettingsCheck.Kind.BOOLEAN),
                Map.entry("slidegate.redis.timeout", SettingsCheck.Kind.TIME),
                Map.entry("slidegate.policies.*.plans.*.max-wait", SettingsCheck.Kind.TIME),
                Map.entry("slidegate.policies.*.lease", SettingsCheck.Kind.TIME),
                Map.entry("slidegate.memory.max-keys", SettingsCheck.Kind.NUMBER),
                Map.entry("slidegate.policies.*.max-in-flight", SettingsCheck.Kind.NUMBER),
                Map.entry("slidegate.store", SettingsCheck.Kind.CHOICE),
                Map.entry("slidegate.policies.*.strategy", SettingsCheck.Kind.CHOICE),
                Map.entry("slidegate.defaults.fail-mode", SettingsCheck.Kind.CHOICE),
                Map.entry("slidegate.policies.*.zone", SettingsCheck.Kind.ZONE),
                Map.entry("slidegate.defaults.zone", SettingsCheck.Kind.ZONE),
                Map.entry("slidegate.policies.*.limits", SettingsCheck.Kind.TEXT),
                Map.entry("slidegate.plans.api-keys.*", SettingsCheck.Kind.TEXT));
        expected.forEach((name, kind) -> assertEquals(kind, known.get(name), name));
        assertTrue(known.size() > 80, "every setting of the mapping: " + known.keySet());
        assertTrue(known.keySet().stream().allMatch(n -> n.startsWith("slidegate.") && !n.endsWith("[*]")), known.toString());
        for (java.lang.reflect.Method m : SlidegateConfig.PolicyConfig.class.getDeclaredMethods()) {
            if (m.getReturnType() == java.util.Optional.class && m.getGenericReturnType().getTypeName()
                    .matches(".*<java\\.lang\\.(Boolean|Integer|Long)>|.*Duration>|.*ZoneId>")) {
                String member = m.getName().replaceAll("([A-Z])", "-$1").toLowerCase(java.util.Locale.ROOT);
                assertTrue(known.get("slidegate.policies.*." + member) != SettingsCheck.Kind.TEXT,
                        member + " is typed, so it is checked as its type: " + known.get("slidegate.policies.*." + member));
            }
        }
    }

    // every boolean, time, number, choice and zone of the declarations, given ill-typed or empty in the environment,
    // stops the start-up naming it (issue 56: SLIDEGATE_UPSTREAM_SPREAD=ture turned spreading off, ..._SETTLE=yes,
    // ..._OUTGOING=ture, ..._REFUND_FAILURES=1 started, an empty ..._ZONE= started in UTC)
    @Test
    void everyTypedSettingIllTypedOrEmptyInTheEnvironmentIsRefused() {
        Map<String, String> properties = Map.of("slidegate.policies.billing.limits", "5/1m",
                "slidegate.policies.billing.plans.pro.limits", "9/1m", "slidegate.defaults.plans.pro.limits", "9/1m");
        int checked = 0;
        for (Map.Entry<String, SettingsCheck.Kind> e : SettingsCheck.SETTINGS.entrySet()) {
            if (e.getValue() == SettingsCheck.Kind.TEXT) {
                continue;
            }
            String name = e.getKey().replace("policies.*.", "policies.billing.").replace("plans.*.", "plans.pro.");
            String variable = SettingsCheck.environmentName(name);
            List<String> bad = new java.util.ArrayList<>(List.of(""));
            if (e.getValue() == SettingsCheck.Kind.BOOLEAN) {
                bad.addAll(List.of("ture", "yes", "1"));
            }
            if (e.getValue() == SettingsCheck.Kind.ZONE) {
                bad.add("Mars/Olympus");
            }
            for (String value : bad) {
                String prefix = "Invalid Slidegate configuration: " + name + " (environment variable " + variable + "): ";
                Throwable refused;
                try {
                    SmallRyeConfig config = TestConfigs.config(properties, Map.of(variable, value));
                    SettingsCheck.check(config, config.getConfigMapping(SlidegateConfig.class));
                    refused = null;
                } catch (RuntimeException ex) {
                    refused = ex;
                }
                if (value.isEmpty() && refused instanceof io.smallrye.config.ConfigValidationException) {
                    // a setting with a default: SmallRye itself refuses the empty value, naming the property
                    assertTrue(refused.getMessage().contains(name), variable + "='" + value + "': " + refused);
                } else if (e.getValue() == SettingsCheck.Kind.ZONE && !value.isEmpty()) {
                    // converted by its declaration's converter: SmallRye refuses it, naming the property and the value
                    assertTrue(refused instanceof io.smallrye.config.ConfigValidationException
                            && refused.getMessage().contains(name) && refused.getMessage().contains(
                                    "'" + value + "' is not a time zone"),
                            variable + "='" + value + "': " + refused);
                } else if (value.isEmpty() || e.getValue() != SettingsCheck.Kind.TIME) {
                    assertTrue(refused instanceof ConfigurationException && refused.getMessage().startsWith(prefix),
                            variable + "='" + value + "': " + refused);
                } else {
                    assertTrue(refused != null, variable + "='" + value + "' was taken");
                }
                checked++;
            }
        }
        assertTrue(checked > 60, "checked " + checked);
    }
}
