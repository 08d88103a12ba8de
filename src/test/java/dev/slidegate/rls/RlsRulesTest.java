package dev.slidegate.rls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.slidegate.api.FailMode;
import dev.slidegate.api.Strategy;
import io.quarkus.runtime.configuration.ConfigurationException;

/** envoyproxy/ratelimit's rule files as Slidegate reads them: the matching, and one sentence for what cannot map. */
@org.junit.jupiter.api.Timeout(10)
class RlsRulesTest {

    private static RlsRules rules(String yaml) {
        return RlsRuleFiles.parse(Map.of("rules.yaml", yaml));
    }

    private static String refusal(String yaml) {
        return assertThrows(IllegalArgumentException.class, () -> rules(yaml)).getMessage();
    }

    private static RlsRules.Match match(RlsRules r, String... keyValues) {
        List<String> keys = new java.util.ArrayList<>();
        List<String> values = new java.util.ArrayList<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            keys.add(keyValues[i]);
            values.add(keyValues[i + 1]);
        }
        return r.match("d", keys, values);
    }

    private static final String MATCHING = """
            domain: d
            descriptors:
              - key: k
                rate_limit: {unit: minute, requests_per_unit: 10}
              - key: k
                value: exact
                rate_limit: {unit: minute, requests_per_unit: 1}
              - key: k
                value: "pre*post"
                rate_limit: {unit: minute, requests_per_unit: 2}
              - key: outer
                value: o
                descriptors:
                  - key: inner
                    rate_limit: {unit: day, requests_per_unit: 3}
            """;

    @Test
    void theMostSpecificRuleOfTheDescriptorsDepthApplies() {
        RlsRules r = rules(MATCHING);
        assertEquals(1, match(r, "k", "exact").limit().perUnit(), "the value's rule first");
        assertEquals(2, match(r, "k", "pre-middle-post").limit().perUnit(), "then a pattern");
        assertEquals(2, match(r, "k", "prepost").limit().perUnit(), "* matches nothing too");
        assertEquals(10, match(r, "k", "pre-only").limit().perUnit(), "then the key's rule");
        assertEquals(3, match(r, "outer", "o", "inner", "x").limit().perUnit());
        assertNull(match(r, "outer", "o"), "a rule with no rate_limit limits nothing");
        assertNull(match(r, "k", "exact", "more", "x"), "a descriptor deeper than the rules");
        assertNull(match(r, "other", "x"));
        assertNull(r.match("unknown-domain", List.of("k"), List.of("x")));
        assertEquals(RlsRules.Unit.DAY, match(r, "outer", "o", "inner", "x").limit().unit());
    }

    @Test
    void keysNeverCollideWhateverTheValuesHold() {
        RlsRules r = rules(MATCHING);
        assertNotEquals(match(r, "k", "a|k=b").key(), match(r, "k", "a").key());
        assertNotEquals(match(r, "outer", "o", "inner", "a=b").key(), match(r, "outer", "o", "inner", "a%3db").key());
        assertEquals("outer=o|inner=x", match(r, "outer", "o", "inner", "x").key());
    }

    @Test
    void whatCannotMapIsRefusedWithOneSentenceNamingIt() {
        assertEquals("rules.yaml: unknown field 'quota_mode' in a descriptor of d (Slidegate does not implement it)",
                refusal("domain: d\ndescriptors:\n  - key: k\n    quota_mode: true\n"));
        assertTrue(refusal("domain: d\ndescriptors:\n  - key: k\n    rate_limits: {}\n")
                .startsWith("rules.yaml: unknown field 'rate_limits' in a descriptor of d (known: "));
        assertEquals("rules.yaml: rate_limit of d.k has unit 'fortnight'; one of second, minute, hour, day, week, month, year",
                refusal("domain: d\ndescriptors:\n  - key: k\n    rate_limit: {unit: fortnight, requests_per_unit: 1}\n"));
        assertEquals("rules.yaml: rate_limit of d.k has requests_per_unit '-1'; a whole number from 0 to 4294967295",
                refusal("domain: d\ndescriptors:\n  - key: k\n    rate_limit: {unit: second, requests_per_unit: -1}\n"));
        assertEquals("rules.yaml: rate_limit of d.k has requests_per_unit '1.5'; a whole number from 0 to 4294967295",
                refusal("domain: d\ndescriptors:\n  - key: k\n    rate_limit: {unit: second, requests_per_unit: 1.5}\n"));
        assertEquals("rules.yaml: d: key 'k' with value 'v' is listed twice at the same level",
                refusal("domain: d\ndescriptors:\n  - {key: k, value: v}\n  - {key: k, value: v}\n"));
        assertEquals("rule d.k replaces 'nobody', a name no rate_limit of domain 'd' has", refusal(
                "domain: d\ndescriptors:\n  - key: k\n    rate_limit: {unit: second, requests_per_unit: 1, replaces: [{name: nobody}]}\n"));
        assertEquals("rules.yaml: d.k sets shadow_mode but has no rate_limit",
                refusal("domain: d\ndescriptors:\n  - {key: k, shadow_mode: true}\n"));
        assertEquals("rules.yaml: d.k_v sets share_threshold, which needs a value with '*'",
                refusal("domain: d\ndescriptors:\n  - {key: k, value: v, share_threshold: true}\n"));
        assertEquals("rules.yaml: rate_limit of d.k is unlimited and names a unit or requests_per_unit too",
                refusal("domain: d\ndescriptors:\n  - key: k\n    rate_limit: {unlimited: true, unit: second}\n"));
        assertEquals("rules.yaml: shadow_mode of d.k is 'yes please', not true or false",
                refusal("domain: d\ndescriptors:\n  - {key: k, shadow_mode: yes please}\n"));
        assertEquals("rules.yaml: 'domain' is missing or empty", refusal("descriptors: []\n"));
        assertEquals("b.yaml: domain 'd' is configured in a.yaml already; keep each domain in one file",
                assertThrows(IllegalArgumentException.class, () -> RlsRuleFiles.parse(twoFiles())).getMessage());
    }

    // Slidegate's own field of a rate_limit: plans, each a unit and requests_per_unit; each plan a policy of its own
    @Test
    void plansAreReadCheckedAndEachAPolicyOfItsOwn() {
        RlsRules r = rules("""
                domain: d
                descriptors:
                  - key: api_key
                    rate_limit:
                      unit: minute
                      requests_per_unit: 2
                      plans:
                        pro: {unit: minute, requests_per_unit: 50}
                        enterprise: {unit: second, requests_per_unit: 10}
                """);
        assertEquals(List.of(new RlsRules.Plan("pro", 50, RlsRules.Unit.MINUTE),
                new RlsRules.Plan("enterprise", 10, RlsRules.Unit.SECOND)), r.limits().get(0).plans());
        RlsPolicies p = new RlsPolicies(true, r, Strategy.SLIDING_LOG, FailMode.LOCAL);
        assertEquals(List.of("rls.d.api_key", "rls.d.api_key.pro", "rls.d.api_key.enterprise"),
                p.bounds().stream().map(b -> b.resolved().name()).toList());
        RlsPolicies.Rule rule = p.rule(r.limits().get(0));
        assertEquals(10, rule.forPlan("enterprise").resolved().policy().limits().get(0).permits());
        assertEquals(1_000_000, rule.forPlan("enterprise").resolved().policy().limits().get(0).windowMicros());
        assertEquals(rule, rule.forPlan("gold"), "a plan the rule does not list: the rule's own");
        assertEquals(rule, rule.forPlan(null));

        String base = "domain: d\ndescriptors:\n  - key: k\n    rate_limit: {unit: second, requests_per_unit: 1, plans: ";
        assertEquals("rules.yaml: plan 'pro' of rate_limit of d.k has unit 'fortnight'; one of second, minute, hour, day, "
                + "week, month, year", refusal(base + "{pro: {unit: fortnight, requests_per_unit: 5}}}\n"));
        assertEquals("rules.yaml: plan 'pro' of rate_limit of d.k allows 0 requests; a plan allows at least 1 (leave its "
                + "callers out of slidegate.plans.api-keys to give them the rule's own limit)",
                refusal(base + "{pro: {unit: second, requests_per_unit: 0}}}\n"));
        assertEquals("rules.yaml: unknown field 'shadow_mode' in plan 'pro' of rate_limit of d.k (a plan has 'unit' and "
                + "'requests_per_unit')", refusal(base + "{pro: {unit: second, requests_per_unit: 5, shadow_mode: true}}}\n"));
        assertEquals("rules.yaml: 'plans' of rate_limit of d.k names plan 'a plan'; a plan's name is 1 to 32 letters, "
                + "digits, '_' or '-'", refusal(base + "{'a plan': {unit: second, requests_per_unit: 5}}}\n"));
        assertEquals("rules.yaml: 'plans' of rate_limit of d.k is not a map of fields", refusal(base + "[pro]}\n"));
        assertEquals("rules.yaml: rate_limit of d.k is unlimited and has plans too", refusal(
                "domain: d\ndescriptors:\n  - key: k\n    rate_limit: {unlimited: true, plans: {pro: {unit: second, "
                        + "requests_per_unit: 5}}}\n"));
    }

    private static Map<String, String> twoFiles() {
        Map<String, String> m = new java.util.LinkedHashMap<>();
        m.put("a.yaml", "domain: d\n");
        m.put("b.yaml", "domain: d\n");
        return m;
    }

    @Test
    void eachRuleIsAPolicyOfItsOwnName() {
        RlsRules r = rules(MATCHING + """
                  - key: "a key with spaces and a very long name that goes on and on and on and on"
                    rate_limit: {unit: second, requests_per_unit: 4}
                  - key: z
                    shadow_mode: true
                    rate_limit: {unit: year, requests_per_unit: 4}
                """);
        RlsPolicies p = new RlsPolicies(true, r, Strategy.SLIDING_LOG, FailMode.OPEN);
        List<String> names = p.bounds().stream().map(b -> b.resolved().name()).toList();
        assertEquals(List.of("rls.d.k", "rls.d.k_exact", "rls.d.k_pre-post", "rls.d.outer_o.inner",
                "rls.d.a-key-with-spaces-and-a-very-long-name-that-goes-on-", "rls.d.z"), names);
        names.forEach(n -> assertTrue(n.length() <= 64, n));
        var z = p.bounds().get(5).resolved().policy();
        assertTrue(z.dryRun(), "shadow_mode is a dry run");
        assertEquals(365L * 86_400 * 1_000_000, z.limits().get(0).windowMicros());
        assertEquals(FailMode.OPEN, z.failMode());
        ConfigurationException tooMany = assertThrows(ConfigurationException.class, () -> new RlsPolicies(true,
                rules("domain: d\ndescriptors:\n  - key: k\n    rate_limit: {unit: second, requests_per_unit: 4294967295}\n"),
                Strategy.SLIDING_LOG, FailMode.LOCAL));
        assertEquals(
                "slidegate.rls.config: rule d.k allows 4294967295 requests per second; Slidegate counts at most 2147483647",
                tooMany.getMessage());
    }
}
