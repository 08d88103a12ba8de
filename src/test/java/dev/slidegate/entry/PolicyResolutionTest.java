package dev.slidegate.entry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import dev.slidegate.api.Limit;
import dev.slidegate.api.RateLimitKey;
import dev.slidegate.api.RateLimited;
import dev.slidegate.api.Strategy;
import dev.slidegate.config.KeySource;
import dev.slidegate.config.PolicyCatalog;
import dev.slidegate.config.PolicyMembers;
import dev.slidegate.config.PolicyRegistry;
import dev.slidegate.config.SlidegateConfig;
import dev.slidegate.engine.MethodPolicy;
import io.quarkus.runtime.configuration.ConfigurationException;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;

/** Configuration merged over annotations, and the one-line errors for everything invalid. */
class PolicyResolutionTest {

    @SuppressWarnings("unused")
    static class Sample {
        @RateLimited("products")
        public String named() {
            return "";
        }

        @RateLimited(value = "inline", limits = { "5/1s",
                "50/1m" }, key = "header:X-Tenant", strategy = "fixed-window", countRejected = RateLimited.Toggle.ON)
        public String inline() {
            return "";
        }

        @RateLimited(limits = "3/1s")
        public Uni<String> unnamed() {
            return null;
        }

        @RateLimited(limits = "3/1s")
        public CompletableFuture<String> stage(@RateLimitKey String tenant) {
            return null;
        }

        @RateLimited("overridden")
        public String overridden() {
            return "";
        }

        @RateLimited("missing")
        public String missing() {
            return "";
        }

        @RateLimited(limits = "abc")
        public String badLimit() {
            return "";
        }

        @RateLimited(limits = "1/1s", key = "cookie")
        public String badKey() {
            return "";
        }

        @RateLimited(limits = "1/1s")
        public String twoKeys(@RateLimitKey String a, @RateLimitKey String b) {
            return a + b;
        }

        @RateLimited(limits = "1/1s")
        public Multi<String> stream() {
            return null;
        }

        @RateLimited(value = "exports", maxInFlight = 2, lease = "10s")
        public String export() {
            return "";
        }

        @RateLimited(value = "both", maxInFlight = 2, limits = "5/1s")
        public String inFlightAndLimits() {
            return "";
        }

        @RateLimited(value = "completions", limits = "100/1h", cost = 40, unit = "tokens")
        public String tokens() {
            return "";
        }

        @RateLimited(value = "shouting", limits = "100/1h", unit = "Tokens")
        public String badUnit() {
            return "";
        }

        @RateLimited(value = "estimated", limits = "1000/1h", unit = "tokens")
        public String estimated(@dev.slidegate.api.RateLimitCost long maxTokens) {
            return "";
        }

        @RateLimited(value = "estimated", limits = "1000/1h", unit = "tokens")
        public String costByName(@dev.slidegate.api.RateLimitCost String maxTokens) {
            return "";
        }

        @RateLimited(value = "running", maxInFlight = 2, unit = "tokens")
        public String unitInFlight() {
            return "";
        }

        @RateLimited(value = "leaseAlone", limits = "5/1s", lease = "10s")
        public String leaseAlone() {
            return "";
        }

        @RateLimited(value = "shortLease", maxInFlight = 1, lease = "10ms")
        public String shortLease() {
            return "";
        }

        @RateLimited(value = "inline", limits = "9/1s")
        public String conflicting() {
            return "";
        }
    }

    private static SlidegateConfig config(Map<String, String> props) {
        return dev.slidegate.testing.TestConfigs.slidegate(props);
    }

    private static MethodPolicies policies(Map<String, String> props) {
        return new MethodPolicies(new PolicyRegistry(config(props)), name -> "tenant".equals(name) ? call -> "acme" : null,
                call -> null);
    }

    private static PolicyBinder binder(Map<String, String> props) {
        return new PolicyBinder(new PolicyRegistry(config(props)), name -> "tenant".equals(name) ? call -> "acme" : null);
    }

    /** The catalog of {@code registry} with the policies annotations declare at the given places. */
    private static PolicyCatalog catalog(PolicyRegistry registry, Object... declaredAndWhere) {
        List<PolicyCatalog.Bound> bound = new java.util.ArrayList<>();
        for (int i = 0; i < declaredAndWhere.length; i += 2) {
            String where = (String) declaredAndWhere[i + 1];
            bound.add(new PolicyCatalog.Bound(registry.resolve((PolicyRegistry.Declared) declaredAndWhere[i], where), where));
        }
        return PolicyCatalog.of(registry, bound);
    }

    private static MethodPolicy resolve(MethodPolicies policies, String name) throws NoSuchMethodException {
        Method m = java.util.Arrays.stream(Sample.class.getMethods()).filter(x -> x.getName().equals(name)).findFirst()
                .orElseThrow(() -> new NoSuchMethodException(name));
        return policies.of(m, m.getAnnotation(RateLimited.class));
    }

    private static final Map<String, String> BASE = Map.of(
            "slidegate.policies.products.limits", "500/2s,2000/10s",
            "slidegate.policies.overridden.limits", "7/1m",
            "slidegate.policies.overridden.strategy", "fixed-window",
            "slidegate.policies.overridden.key", "global");

    /** The message SmallRye Config refuses {@code properties} with, converting them as it reads them. */
    private static String unreadable(Map<String, String> properties) {
        return assertThrows(io.smallrye.config.ConfigValidationException.class, () -> config(properties)).getMessage();
    }

    @Test
    void namedPolicyComesFromConfiguration() throws Exception {
        MethodPolicy mp = resolve(policies(BASE), "named");
        assertEquals(List.of(Limit.parse("500/2s"), Limit.parse("2000/10s")), mp.policy().limits());
        assertEquals(Strategy.SLIDING_LOG, mp.policy().strategy());
        assertEquals(new KeySource.Ip(), mp.key());
        assertEquals(MethodPolicy.Kind.PLAIN, mp.kind());
        assertEquals("Sample#named", mp.where());
    }

    @Test
    void inlineMembersApplyAndConfigurationOverridesThem() throws Exception {
        MethodPolicy inline = resolve(policies(BASE), "inline");
        assertEquals(List.of(Limit.parse("5/1s"), Limit.parse("50/1m")), inline.policy().limits());
        assertEquals(Strategy.FIXED_WINDOW, inline.policy().strategy());
        assertEquals(new KeySource.Header("X-Tenant"), inline.key());
        assertTrue(inline.policy().countRejected());

        MethodPolicy overridden = resolve(policies(Map.of("slidegate.policies.inline.limits", "1/1h",
                "slidegate.policies.inline.count-rejected", "false")), "inline");
        assertEquals(List.of(Limit.parse("1/1h")), overridden.policy().limits());
        assertEquals(Strategy.FIXED_WINDOW, overridden.policy().strategy(), "what configuration does not set stays");
        assertEquals(false, overridden.policy().countRejected());
    }

    @Test
    void unnamedInlinePoliciesAreNamedAfterTheirMethod() throws Exception {
        MethodPolicies policies = policies(BASE);
        MethodPolicy uni = resolve(policies, "unnamed");
        assertEquals("Sample.unnamed", uni.policy().name());
        assertEquals(MethodPolicy.Kind.UNI, uni.kind());
        MethodPolicy stage = resolve(policies, "stage");
        assertEquals(MethodPolicy.Kind.STAGE, stage.kind());
        assertEquals(0, stage.keyParameter());
    }

    // issue 39: a REST client's policy is keyed by the client by default, never by the request being answered; a
    // policy of this service's requests has no client; one policy is never both
    @Test
    void anOutgoingPolicyIsKeyedByItsClientAndNeverByTheRequest() {
        PolicyRegistry registry = new PolicyRegistry(config(Map.of("slidegate.policies.out.key", "ip")));
        PolicyRegistry.Resolved out = registry.resolve(
                new PolicyRegistry.Declared("paced", List.of("5/1s"), "", "", null, null, 0, "", true), "ShopClient#get");
        assertEquals(new KeySource.Client(), out.key());
        assertTrue(out.outgoing());
        String byIp = assertThrows(ConfigurationException.class, () -> registry.resolve(
                new PolicyRegistry.Declared("out", List.of("5/1s"), "", "", null, null, 0, "", true), "ShopClient#get"))
                .getMessage();
        assertEquals("Invalid Slidegate configuration: ShopClient#get: policy 'out' limits calls to an upstream, so it "
                + "cannot key them by ip (a request this service answers): use client (the default), global, a @Named "
                + "KeyResolver bean or a @RateLimitKey parameter (slidegate.policies.out.key)", byIp);
        String clientIn = assertThrows(ConfigurationException.class, () -> registry.resolve(
                new PolicyRegistry.Declared("in", List.of("5/1s"), "", "client"), "Shop#get")).getMessage();
        assertTrue(clientIn.contains("policy 'in' keys callers by client, which names the REST client of an outgoing call"),
                clientIn);
        PolicyRegistry.Resolved in = registry.resolve(new PolicyRegistry.Declared("paced", List.of("5/1s"), "", "global"),
                "Shop#get");
        PolicyRegistry.Resolved outGlobal = registry.resolve(
                new PolicyRegistry.Declared("paced", List.of("5/1s"), "", "global", null, null, 0, "", true), "ShopClient#get");
        String both = assertThrows(ConfigurationException.class, () -> PolicyCatalog.of(registry,
                List.of(new PolicyCatalog.Bound(in, "Shop#get"), new PolicyCatalog.Bound(outGlobal, "ShopClient#get"))))
                .getMessage();
        assertEquals("Invalid Slidegate configuration: ShopClient#get paces calls to an upstream with policy 'paced', and "
                + "Shop#get limits requests this service answers with it: give one of them a policy of its own", both);
        String defaults = assertThrows(ConfigurationException.class,
                () -> new PolicyRegistry(config(Map.of("slidegate.defaults.outgoing", "true")))).getMessage();
        assertTrue(defaults.startsWith("Invalid Slidegate configuration: slidegate.defaults.outgoing: is not a default"),
                defaults);
    }

    @Test
    void resolutionIsCachedPerMethod() throws Exception {
        MethodPolicies policies = policies(BASE);
        assertTrue(resolve(policies, "named") == resolve(policies, "named"));
    }

    private static String failure(Map<String, String> props, String method) {
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> resolve(policies(props), method));
        assertTrue(!e.getMessage().contains("\n"), "one line: " + e.getMessage());
        return e.getMessage();
    }

    @Test
    void everyInvalidInputFailsWithOneLineNamingItsSource() {
        assertEquals(
                "Invalid Slidegate configuration: Sample#missing: @RateLimited(\"missing\") names no configured policy and gives "
                        + "no limits: set slidegate.policies.missing.limits or add limits = {\"100/1m\"}; configured policies: [overridden, products]",
                failure(BASE, "missing"));
        assertTrue(failure(BASE, "badLimit")
                .startsWith("Invalid Slidegate configuration: Sample#badLimit: @RateLimited(limits): 'abc' is not a limit"));
        assertTrue(failure(BASE, "badKey")
                .contains("Sample#badKey: policy 'Sample.badKey' keys callers by 'cookie', but there is no "
                        + "@Named(\"cookie\") KeyResolver bean (slidegate.policies.Sample.badKey.key or @RateLimited(key)); expected ip, user, "
                        + "global, path, header:<Name>, param:<name>, client (REST clients), the name of a @Named KeyResolver bean, or several joined by +"),
                failure(BASE, "badKey"));
        assertTrue(failure(BASE, "inFlightAndLimits").contains(
                "Sample#inFlightAndLimits: @RateLimited: policy 'both' limits calls in flight (maxInFlight) or calls per window "
                        + "(limits), not both"),
                failure(BASE, "inFlightAndLimits"));
        assertTrue(failure(BASE, "leaseAlone").contains("@RateLimited(lease): only a concurrency limit has leases"));
        assertTrue(failure(BASE, "shortLease").contains("@RateLimited(lease): '10ms' is not a lease time: expected 1s to 1d"));
        assertTrue(failure(BASE, "twoKeys").contains("Sample#twoKeys has more than one @RateLimitKey parameter"));
    }

    /** The site the build records for a method of {@link Sample} (see {@link RateLimitedSites}). */
    private static RateLimitedSites.Sites.Site site(String method) throws NoSuchMethodException {
        java.lang.reflect.Method m = java.util.Arrays.stream(Sample.class.getDeclaredMethods())
                .filter(x -> x.getName().equals(method)).findFirst().orElseThrow(() -> new NoSuchMethodException(method));
        RateLimited a = m.getAnnotation(RateLimited.class);
        int keys = (int) java.util.Arrays.stream(m.getParameterAnnotations())
                .filter(p -> java.util.Arrays.stream(p).anyMatch(x -> x instanceof RateLimitKey)).count();
        return new RateLimitedSites.Sites.Site("Sample#" + method, m.getGenericReturnType().getTypeName(), keys, a.value(),
                List.of(a.limits()), a.strategy(), a.key(), a.countRejected(), a.dryRun(), a.cost(), a.maxWait(), m.toString(),
                "", a.maxInFlight(), a.lease(), a.unit());
    }

    // calls in flight, inline and configured; a stream is decided when it is subscribed to, like a Uni
    @Test
    void concurrencyLimitsAndStreamsResolve() throws Exception {
        MethodPolicy export = resolve(policies(BASE), "export");
        assertTrue(export.policy().inFlight());
        assertNull(export.policy().strategy(), "calls in flight are a primitive of their own, not a strategy");
        assertEquals(2, export.policy().maxInFlight());
        assertEquals(10_000_000L, export.policy().leaseMicros());
        Map<String, String> configured = new java.util.HashMap<>(BASE);
        configured.put("slidegate.policies.exports.max-in-flight", "5");
        MethodPolicy fromConfig = resolve(policies(configured), "export");
        assertEquals(5, fromConfig.policy().maxInFlight(), "configuration wins over the annotation");
        assertEquals(30_000_000L, fromConfig.policy().leaseMicros(), "the configured policy's lease: the default");
        assertEquals(MethodPolicy.Kind.MULTI, resolve(policies(BASE), "stream").kind());
        assertEquals("Sample#stream", binder(BASE).site(site("stream")).where());
    }

    // a unit is a lower-case word; a policy of calls in flight counts calls running and takes none; a default unit
    // applies to the policies of windows only
    @Test
    void unitsResolveAndBadOnesAreRefusedWithASentence() throws Exception {
        Map<String, String> tokens = new java.util.HashMap<>(BASE);
        tokens.put("slidegate.policies.products.unit", "tokens");
        assertEquals("tokens", resolve(policies(tokens), "named").policy().unit());
        assertEquals("requests", resolve(policies(BASE), "named").policy().unit());
        Map<String, String> byDefault = new java.util.HashMap<>(BASE);
        byDefault.put("slidegate.defaults.unit", "bytes");
        assertEquals("bytes", resolve(policies(byDefault), "named").policy().unit());
        assertEquals("concurrent-requests", resolve(policies(byDefault), "export").policy().unit());
        Map<String, String> bad = new java.util.LinkedHashMap<>();
        bad.put("slidegate.policies.e.limits=5/1s;slidegate.policies.e.unit=Tokens",
                "slidegate.policies.e.unit: 'Tokens' is not a unit: use a lower-case word");
        bad.put("slidegate.policies.e.limits=5/1s;slidegate.policies.e.unit=concurrent-requests",
                "concurrent-requests is the unit of max-in-flight");
        bad.put("slidegate.policies.e.max-in-flight=2;slidegate.policies.e.unit=tokens",
                "slidegate.policies.e.unit: a policy with max-in-flight counts calls running");
        assertRefused(bad);
        // inline, on the annotation; configuration wins over it
        assertEquals("tokens", resolve(policies(BASE), "tokens").policy().unit());
        Map<String, String> bytes = new java.util.HashMap<>(BASE);
        bytes.put("slidegate.policies.completions.unit", "bytes");
        assertEquals("bytes", resolve(policies(bytes), "tokens").policy().unit());
        assertTrue(failure(BASE, "badUnit").contains("Sample#badUnit: @RateLimited(unit): 'Tokens' is not a unit"),
                failure(BASE, "badUnit"));
        assertTrue(failure(BASE, "unitInFlight").contains("policy 'running' limits calls in flight, which count calls running"),
                failure(BASE, "unitInFlight"));
    }

    /**
     * Each entry's settings ({@code a=1;b=2}) stop start-up with one line containing the expected words; a key that
     * SmallRye itself rejects may span lines after its own heading.
     */
    // issue 41: settle=true resolves to a settlement (refund-failures: failures refunded); a strategy that cannot settle,
    // calls in flight, or refund-failures without settle are one-line errors naming the setting
    @Test
    void settlementsResolveAndImpossibleOnesAreRefusedWithASentence() throws Exception {
        Map<String, String> settled = new java.util.HashMap<>(BASE);
        settled.put("slidegate.policies.products.strategy", "sliding-counter");
        settled.put("slidegate.policies.products.settle", "true");
        assertEquals(dev.slidegate.core.Settlement.REPORTED, resolve(policies(settled), "named").settlement());
        settled.put("slidegate.policies.products.refund-failures", "true");
        assertEquals(dev.slidegate.core.Settlement.REPORTED_OR_REFUND, resolve(policies(settled), "named").settlement());
        assertEquals(dev.slidegate.core.Settlement.OFF, resolve(policies(BASE), "named").settlement());
        Map<String, String> log = new java.util.HashMap<>(BASE);
        log.put("slidegate.policies.products.settle", "true");
        assertTrue(failure(log, "named").contains("policy 'products' settles its calls (settle=true), but counts with "
                + "sliding-log, which keeps one entry per permit: use sliding-counter"), failure(log, "named"));
        Map<String, String> refundAlone = new java.util.HashMap<>(BASE);
        refundAlone.put("slidegate.policies.products.refund-failures", "true");
        assertTrue(failure(refundAlone, "named").contains("slidegate.policies.products.refund-failures: only a policy with "
                + "settle=true refunds"), failure(refundAlone, "named"));
        Map<String, String> bad = new java.util.LinkedHashMap<>();
        bad.put("slidegate.policies.e.max-in-flight=2;slidegate.policies.e.settle=true",
                "slidegate.policies.e.settle: a policy with max-in-flight counts calls running, which have no usage to settle");
        assertRefused(bad);
    }

    // count-when resolves to a settlement by outcome (the policy's, else the defaults'); on a strategy that cannot settle,
    // beside settle or refund-failures, on calls in flight, or naming what is no outcome, it is a one-line error
    @Test
    void countWhenResolvesAndImpossibleOnesAreRefusedWithASentence() throws Exception {
        Map<String, String> counted = new java.util.HashMap<>(BASE);
        counted.put("slidegate.policies.products.strategy", "sliding-counter");
        counted.put("slidegate.policies.products.count-when", "401, 4xx,java.io.IOException");
        dev.slidegate.core.Settlement s = resolve(policies(counted), "named").settlement();
        assertTrue(s.settles() && s.countWhen() != null, s.toString());
        assertEquals(List.of("401", "4xx", "java.io.IOException"), s.countWhen().conditions());
        Map<String, String> byDefault = new java.util.HashMap<>(BASE);
        byDefault.put("slidegate.policies.products.strategy", "fixed-window");
        byDefault.put("slidegate.defaults.count-when", "5xx");
        assertEquals(List.of("5xx"), resolve(policies(byDefault), "named").settlement().countWhen().conditions());
        Map<String, String> log = new java.util.HashMap<>(BASE);
        log.put("slidegate.policies.products.count-when", "401");
        assertTrue(failure(log, "named").contains("policy 'products' counts only some calls (count-when), which settles "
                + "each call when its outcome is known, but counts with sliding-log"), failure(log, "named"));
        Map<String, String> bad = new java.util.LinkedHashMap<>();
        bad.put("slidegate.policies.e.limits=5/1m;slidegate.policies.e.strategy=token-bucket;slidegate.policies.e.count-when=4XX",
                "slidegate.policies.e.count-when: '4XX' is no outcome");
        bad.put("slidegate.policies.e.limits=5/1m;slidegate.policies.e.strategy=token-bucket;slidegate.policies.e.settle=true;"
                + "slidegate.policies.e.count-when=401", "count-when settles each call by its outcome: keep one");
        bad.put("slidegate.policies.e.max-in-flight=2;slidegate.policies.e.count-when=401",
                "slidegate.policies.e.count-when: a policy with max-in-flight counts calls while they run");
        // block-for: 1ms to 1d, not on calls in flight
        bad.put("slidegate.policies.e.limits=5/1m;slidegate.policies.e.block-for=0s",
                "slidegate.policies.e.block-for: 'PT0S' is out of range: expected 1ms to 1d");
        bad.put("slidegate.policies.e.limits=5/1m;slidegate.policies.e.block-for=2d",
                "slidegate.policies.e.block-for: 'PT48H' is out of range");
        bad.put("slidegate.policies.e.max-in-flight=2;slidegate.policies.e.block-for=1m",
                "slidegate.policies.e.block-for: a policy with max-in-flight refuses while its slots are taken");
        // usage-from: answer, with settle
        bad.put("slidegate.policies.e.limits=5/1m;slidegate.policies.e.strategy=token-bucket;slidegate.policies.e.settle=true;"
                + "slidegate.policies.e.usage-from=body",
                "slidegate.policies.e.usage-from: 'body' is not where a usage is read "
                        + "from: expected answer");
        bad.put("slidegate.policies.e.limits=5/1m;slidegate.policies.e.strategy=token-bucket;slidegate.policies.e.settle=false;"
                + "slidegate.policies.e.usage-from=answer",
                "slidegate.policies.e.usage-from: only a policy that settles reads its usage, and this one says settle=false");
        bad.put("slidegate.policies.e.limits=5/1m;slidegate.policies.e.strategy=token-bucket;"
                + "slidegate.policies.e.count-when=401;slidegate.policies.e.usage-from=answer",
                "slidegate.policies.e.usage-from: the policy counts calls by their outcome (count-when), not by the usage");
        bad.put("slidegate.policies.e.max-in-flight=2;slidegate.policies.e.usage-from=answer",
                "slidegate.policies.e.usage-from: a policy with max-in-flight counts calls running");
        // input-limits, output-limits: only with usage-from=answer, on a policy of its own
        bad.put("slidegate.policies.e.limits=5/1m;slidegate.policies.e.strategy=token-bucket;slidegate.policies.e.settle=true;"
                + "slidegate.policies.e.output-limits=100/1m",
                "slidegate.policies.e.output-limits: input and output tokens are told apart by the usage the answer reports: "
                        + "set slidegate.policies.e.usage-from=answer too");
        bad.put("slidegate.defaults.input-limits=100/1m",
                "slidegate.defaults.input-limits: is not a default: set it on the policy whose tokens it limits");
        bad.put("slidegate.policies.e.limits=5/1m;slidegate.policies.e.usage-from=answer;slidegate.policies.e.input-limits=1/0s",
                "input-limits");
        // block-after: K/W within a day, beside block-for, on a name the count of refusals can be kept under
        bad.put("slidegate.policies.e.limits=5/1m;slidegate.policies.e.block-after=3/10m",
                "slidegate.policies.e.block-after: says when a breach blocks the key, and the policy blocks none");
        bad.put("slidegate.policies.e.limits=5/1m;slidegate.policies.e.block-for=1m;slidegate.policies.e.block-after=three",
                "slidegate.policies.e.block-after: 'three' is not K/W");
        bad.put("slidegate.policies.e.limits=5/1m;slidegate.policies.e.block-for=1m;slidegate.policies.e.block-after=3/day",
                "slidegate.policies.e.block-after: '3/day' counts refusals within a window of at most 1d");
        String longName = "e".repeat(60);
        bad.put("slidegate.policies." + longName + ".limits=5/1m;slidegate.policies." + longName + ".block-for=1m;"
                + "slidegate.policies." + longName + ".block-after=3/1m", "which makes more than 64 characters");
        assertRefused(bad);
        Map<String, String> blocking = new java.util.HashMap<>(BASE);
        blocking.put("slidegate.policies.products.block-for", "15m");
        assertEquals(900_000_000L, resolve(policies(blocking), "named").resolved().blockForMicros());
        assertEquals(null, resolve(policies(blocking), "named").resolved().blockAfter(), "the first refusal blocks");
        blocking.put("slidegate.policies.products.block-after", "1/1m");
        assertEquals(null, resolve(policies(blocking), "named").resolved().blockAfter(), "1/W: the first refusal blocks");
        blocking.put("slidegate.policies.products.block-after", "3/10m");
        assertEquals(List.of(dev.slidegate.api.Limit.parse("2/10m")),
                resolve(policies(blocking), "named").resolved().blockAfter().limits(), "two counted, the third blocks");
    }

    // issue 41: a usage header (the policy's, else the defaults') is part of a settlement; without settle, with a name
    // that is no header field's, or on calls in flight it is a one-line error; so is a cost resolver beside a cost, one
    // no bean answers to, or one on calls in flight
    @Test
    void usageHeadersAndCostResolversAreCheckedAtStartUp() throws Exception {
        Map<String, String> settled = new java.util.HashMap<>(BASE);
        settled.put("slidegate.policies.products.strategy", "token-bucket");
        settled.put("slidegate.policies.products.settle", "true");
        settled.put("slidegate.defaults.usage-header", "X-Usage");
        assertEquals(new dev.slidegate.core.Settlement(true, false, "X-Usage"),
                resolve(policies(settled), "named").settlement());
        settled.put("slidegate.policies.products.usage-header", " X-Tokens-Used ");
        assertEquals("X-Tokens-Used", resolve(policies(settled), "named").settlement().usageHeader());
        Map<String, String> alone = new java.util.HashMap<>(BASE);
        alone.put("slidegate.policies.products.usage-header", "X-Tokens-Used");
        assertTrue(failure(alone, "named").contains("slidegate.policies.products.usage-header: only a policy with "
                + "settle=true reads its usage"), failure(alone, "named"));
        Map<String, String> resolved = new java.util.HashMap<>(BASE);
        resolved.put("slidegate.policies.products.cost-resolver", "estimate");
        assertTrue(failure(resolved, "named").contains("policy 'products' works out its calls' cost with 'estimate' "
                + "(slidegate.policies.products.cost-resolver), but there is no @Named(\"estimate\") CostResolver bean"),
                failure(resolved, "named"));
        // issue 60: usage-from=answer settles (no settle=true needed), and llm-request is built in
        Map<String, String> llm = new java.util.HashMap<>(BASE);
        llm.put("slidegate.policies.products.strategy", "fixed-window");
        llm.put("slidegate.policies.products.usage-from", "answer");
        llm.put("slidegate.policies.products.cost-resolver", "llm-request");
        MethodPolicy chat = resolve(policies(llm), "named");
        assertEquals(new dev.slidegate.core.Settlement(true, false, null).readingTheAnswer(), chat.settlement());
        assertEquals(LlmRequestEstimate.INSTANCE, chat.costResolver());
        // input-limits, output-limits: a policy of each part beside the whole, estimated by its part
        llm.put("slidegate.policies.products.input-limits", "300/1m");
        llm.put("slidegate.policies.products.output-limits", "100/1m,1000/1d");
        Method named = java.util.Arrays.stream(Sample.class.getMethods()).filter(x -> x.getName().equals("named"))
                .findFirst().orElseThrow();
        List<MethodPolicy> three = policies(llm).of(named, List.of(named.getAnnotation(RateLimited.class)));
        assertEquals(List.of("products", "products#input", "products#output"),
                three.stream().map(mp -> mp.policy().name()).toList());
        assertEquals(List.of(Limit.parse("100/1m"), Limit.parse("1000/1d")), three.get(2).policy().limits());
        assertEquals("slidegate-output-tokens", three.get(2).policy().unit());
        assertEquals(dev.slidegate.core.Settlement.Part.INPUT, three.get(1).settlement().part());
        String request = "{\"max_tokens\":7,\"messages\":[]}";
        assertEquals((request.length() + 3) / 4 + 7, three.get(0).costOf(new Object[] { request }, null));
        assertEquals((request.length() + 3) / 4, three.get(1).costOf(new Object[] { request }, null));
        assertEquals(7, three.get(2).costOf(new Object[] { request }, null));
        llm.remove("slidegate.policies.products.input-limits");
        llm.remove("slidegate.policies.products.output-limits");
        llm.remove("slidegate.policies.products.strategy"); // sliding-log: one entry per permit, nothing to settle
        assertTrue(failure(llm, "named").contains("policy 'products' settles its calls (settle=true), but counts with "
                + "sliding-log"), failure(llm, "named"));
        Map<String, String> bad = new java.util.LinkedHashMap<>();
        bad.put("slidegate.policies.e.limits=5/1m;slidegate.policies.e.strategy=token-bucket;slidegate.policies.e.settle=true;"
                + "slidegate.policies.e.usage-header=X Tokens",
                "slidegate.policies.e.usage-header: 'X Tokens' is not a header field name");
        bad.put("slidegate.policies.e.max-in-flight=2;slidegate.policies.e.usage-header=X-Used",
                "slidegate.policies.e.usage-header: a policy with max-in-flight counts calls running");
        bad.put("slidegate.policies.e.limits=5/1m;slidegate.policies.e.cost=2;slidegate.policies.e.cost-resolver=estimate",
                "slidegate.policies.e.cost-resolver: the policy sets cost too; keep one");
        bad.put("slidegate.policies.e.limits=5/1m;slidegate.policies.e.cost-resolver=no good",
                "slidegate.policies.e.cost-resolver: 'no good' is not a bean name");
        bad.put("slidegate.policies.e.max-in-flight=2;slidegate.policies.e.cost-resolver=estimate",
                "slidegate.policies.e.cost-resolver: a policy with max-in-flight counts each call once");
        assertRefused(bad);
    }

    // issue 41: limits per calendar period start in the policy's zone (else the defaults', else UTC), its plans' too;
    // a zone that is none, a calendar limit on a strategy other than fixed-window, a zone on calls in flight: one line
    @Test
    void calendarLimitsCountInThePolicysZone() throws Exception {
        Map<String, String> monthly = new java.util.HashMap<>(BASE);
        monthly.put("slidegate.policies.products.limits", "20000/1m,1000000/month");
        monthly.put("slidegate.policies.products.strategy", "fixed-window");
        monthly.put("slidegate.policies.products.zone", "Europe/Berlin");
        monthly.put("slidegate.policies.products.plans.pro.limits", "5000000/month");
        MethodPolicy mp = resolve(policies(monthly), "named");
        java.time.ZoneId berlin = java.time.ZoneId.of("Europe/Berlin");
        assertEquals(List.of(Limit.parse("20000/1m"), new Limit(1000000, new dev.slidegate.api.Calendar(
                dev.slidegate.api.Calendar.Unit.MONTH, berlin))), mp.policy().limits());
        assertEquals(berlin, mp.plans().get("pro").zone(), "a plan's periods start in the policy's zone");
        assertEquals("products-month", mp.policy().quotaName(1));
        Map<String, String> byDefault = new java.util.HashMap<>(monthly);
        byDefault.remove("slidegate.policies.products.zone");
        assertEquals(java.time.ZoneOffset.UTC, resolve(policies(byDefault), "named").policy().zone());
        byDefault.put("slidegate.defaults.zone", "America/New_York");
        assertEquals(java.time.ZoneId.of("America/New_York"), resolve(policies(byDefault), "named").policy().zone());
        Map<String, String> log = new java.util.HashMap<>(BASE);
        log.put("slidegate.policies.products.limits", "1000/day");
        assertTrue(failure(log, "named").contains("policy 'products' counts 1000/day per calendar period, which only "
                + "strategy fixed-window counts"), failure(log, "named"));
        Map<String, String> bad = new java.util.LinkedHashMap<>();
        bad.put("slidegate.policies.e.limits=5/month;slidegate.policies.e.strategy=fixed-window;"
                + "slidegate.policies.e.zone=Europe/Berln",
                "slidegate.policies.e.zone with the config value \"Europe/Berln\" threw an Exception whilst being "
                        + "converted 'Europe/Berln' is not a time zone: use a region such as Europe/Berlin");
        bad.put("slidegate.policies.e.max-in-flight=2;slidegate.policies.e.zone=UTC",
                "slidegate.policies.e.zone: a policy with max-in-flight has no calendar periods");
        assertRefused(bad);
    }

    // issue 41: a @RateLimitCost parameter gives the cost (below 1: 1; null: the policy's), the endpoint is then decided
    // with its arguments (not before dispatch); one on a parameter that is no whole number stops start-up in a sentence
    @Test
    void aCostParameterGivesTheCallsCost() throws Exception {
        MethodPolicy mp = resolve(policies(BASE), "estimated");
        assertEquals(0, mp.costParameter());
        assertEquals(300, mp.costOf(new Object[] { 300L }, null));
        assertEquals(1, mp.costOf(new Object[] { -7L }, null));
        assertEquals(Integer.MAX_VALUE, mp.costOf(new Object[] { Long.MAX_VALUE }, null));
        assertEquals(1, mp.costOf(new Object[] { null }, null), "null: the policy's cost, 1 here");
        assertTrue(!mp.fromRequestAlone(call -> null), "decided by the interceptor, with its arguments");
        assertTrue(failure(BASE, "costByName").contains("Sample#costByName: @RateLimitCost marks a parameter of type String: "
                + "the cost is a whole number"), failure(BASE, "costByName"));
    }

    private static void assertRefused(Map<String, String> bad) {
        bad.forEach((settings, expected) -> {
            Map<String, String> props = new java.util.HashMap<>();
            for (String setting : settings.split(";")) {
                props.put(setting.substring(0, setting.indexOf('=')), setting.substring(setting.indexOf('=') + 1));
            }
            String message = assertThrows(RuntimeException.class, () -> new PolicyRegistry(config(props)), settings)
                    .getMessage();
            assertTrue(message.contains(expected), settings + " -> " + message);
            assertTrue(!message.contains("\n") || message.startsWith("Configuration validation failed"), // (SmallRye's own)
                    "one line: " + message);
        });
    }

    // issue 57: an annotation's members are read into the model configuration is read into, each parsed as its setting
    // is, and merged by one rule: the policy's configuration, else the annotation, else the defaults, else built in
    @Test
    void theAnnotationIsReadAsConfigurationIsAndMergedByOneRule() {
        PolicyRegistry r = new PolicyRegistry(config(Map.of("slidegate.policies.p.strategy", "fixed-window",
                "slidegate.defaults.dry-run", "true", "slidegate.defaults.max-wait", "2s", "slidegate.defaults.cells", "7")));
        PolicyRegistry.Resolved res = r.resolve(
                new PolicyRegistry.Declared("p", List.of("5/1s"), "token-bucket", "header:X-Key", true, null, 3, "1s"), "X#m");
        assertEquals(Strategy.FIXED_WINDOW, res.policy().strategy(), "the configuration first");
        assertEquals(List.of(Limit.parse("5/1s")), res.policy().limits(), "then the annotation");
        assertEquals("header:X-Key", res.key().spec());
        assertTrue(res.policy().countRejected());
        assertEquals(3, res.cost());
        assertEquals(1_000_000L, res.policy().maxWaitMicros(), "the annotation's max-wait before the defaults'");
        assertTrue(res.policy().dryRun(), "then the defaults");
        assertEquals(7, res.policy().cells());
        assertEquals(dev.slidegate.api.FailMode.LOCAL, res.policy().failMode(), "then what is built in");
        String typo = assertThrows(ConfigurationException.class,
                () -> r.resolve(new PolicyRegistry.Declared("p", List.of("5/1s"), "leaky", ""), "X#m")).getMessage();
        assertTrue(typo.contains("X#m: @RateLimited(strategy): 'leaky' is not a strategy"),
                "an annotation's typo is refused even where configuration sets the member: " + typo);
        String both = assertThrows(ConfigurationException.class, () -> r.resolve(
                new PolicyRegistry.Declared("p", List.of(), "", "", null, null, 0, "", false, 2, ""), "X#m")).getMessage();
        assertTrue(both.contains("policy 'p' limits calls in flight (max-in-flight) or calls per window (strategy), "
                + "not both"), both);
    }

    // unset, a limit of calls in flight fails closed (no instance can keep M alone) while a rate policy fails local;
    // a fail mode the service sets, globally, in the defaults or on the policy, applies to both
    @Test
    void callsInFlightFailClosedUnlessTheServiceSaysOtherwise() throws Exception {
        assertEquals(dev.slidegate.api.FailMode.CLOSED, resolve(policies(BASE), "export").policy().failMode());
        assertEquals(dev.slidegate.api.FailMode.LOCAL, resolve(policies(BASE), "named").policy().failMode());
        for (String setting : List.of("slidegate.fail-mode", "slidegate.defaults.fail-mode",
                "slidegate.policies.exports.fail-mode")) {
            Map<String, String> set = new java.util.HashMap<>(BASE);
            set.put(setting, "local");
            assertEquals(dev.slidegate.api.FailMode.LOCAL, resolve(policies(set), "export").policy().failMode(), setting);
        }
    }

    // the check start-up runs without reflection (a native executable) fails as resolving the method does
    @Test
    void whatTheBuildFoundIsCheckedAsTheMethodWouldBe() throws Exception {
        for (String method : List.of("missing", "badLimit", "badKey", "twoKeys", "inFlightAndLimits", "leaseAlone", "badUnit",
                "unitInFlight")) {
            RateLimitedSites.Sites.Site site = site(method);
            String fromSite = assertThrows(ConfigurationException.class, () -> binder(BASE).site(site)).getMessage();
            assertEquals(failure(BASE, method), fromSite, method);
        }
        assertEquals("products", binder(BASE).site(site("named")).resolved().name());
        assertEquals("Sample#stage", binder(BASE).site(site("stage")).where());
    }

    // start-up checks every site the build found; one method naming a policy twice is refused, overloads are
    // separate methods
    @Test
    void oneMethodNamingAPolicyTwiceIsRefusedAndOverloadsAreSeparate() throws Exception {
        RateLimitedSites.Sites.Site named = site("named");
        RateLimitedSites.Sites.Site overload = new RateLimitedSites.Sites.Site(named.where(), named.returnType(),
                named.keyParameters(), named.value(), named.limits(), named.strategy(), named.key(), named.countRejected(),
                named.dryRun(), named.cost(), named.maxWait(), named.signature().replace("()", "(int)"), "");
        assertEquals(java.util.Set.of("products", "overridden"),
                binder(BASE).catalog(List.of(named, overload)).policies().keySet(),
                "both overloads share the policy; the other configured policy is in the catalog too");
        assertEquals("Invalid Slidegate configuration: Sample#named names the same policy in two @RateLimited annotations:"
                + " keep one",
                assertThrows(ConfigurationException.class,
                        () -> binder(BASE).catalog(List.of(named, site("stage"), named))).getMessage());
    }

    @Test
    void invalidConfigurationNamesTheProperty() {
        // typed settings: SmallRye converts each value as it reads the configuration, naming the property and value
        assertTrue(unreadable(Map.of("slidegate.policies.products.limits", "0/1s")).contains(
                "The config property slidegate.policies.products.limits with the config value \"0/1s\" threw an Exception "
                        + "whilst being converted '0/1s' is not a limit: permits must be between 1 and 2147483647; expected "
                        + Limit.EXPECTED));
        assertTrue(unreadable(Map.of("slidegate.policies.p.limits", "5/0s"))
                .contains("slidegate.policies.p.limits with the config value \"5/0s\" threw an Exception whilst being "
                        + "converted '5/0s' is not a limit"));
        assertTrue(unreadable(Map.of("slidegate.policies.p.limits", "1/1s", "slidegate.policies.p.strategy", "leaky"))
                .contains("slidegate.policies.p.strategy with the config value \"leaky\" threw an Exception whilst being "
                        + "converted 'leaky' is not a strategy: expected one of sliding-log, fixed-window, sliding-counter, "
                        + "token-bucket"));
        assertTrue(unreadable(Map.of("slidegate.policies.p.limits", "1/1s", "slidegate.policies.p.key", "header:"))
                .contains("slidegate.policies.p.key with the config value \"header:\""));
        // every unreadable value at once, not the first alone
        String both = unreadable(Map.of("slidegate.policies.p.limits", "x", "slidegate.policies.p.fail-mode", "shut"));
        assertTrue(both.contains("slidegate.policies.p.limits") && both.contains("'shut' is not a fail mode"), both);
        assertTrue(assertThrows(ConfigurationException.class, () -> new PolicyRegistry(
                config(Map.of("slidegate.policies.bad\\:name.limits", "1/1s")))).getMessage().contains("not a policy name"));
    }

    // a name that differs from the one in use only in case is refused: policy names are case-sensitive, so the
    // settings of 'Login' never reached @RateLimited("login"); API keys listed under a plan no policy has were ignored
    @Test
    void namesThatMissWhatTheyMeanAreRefused() {
        PolicyRegistry cased = new PolicyRegistry(config(Map.of("slidegate.policies.Login.limits", "3/1m")));
        PolicyRegistry.Declared login = new PolicyRegistry.Declared("login", List.of("5/1m"), "", "");
        assertEquals("Invalid Slidegate configuration: slidegate.policies.Login.*: there is no policy 'Login', but there is "
                + "'login' (policy names are case-sensitive): name its settings slidegate.policies.login.*",
                assertThrows(ConfigurationException.class, () -> catalog(cased, login, "LoginResource#login")).getMessage());
        PolicyRegistry plans = new PolicyRegistry(config(Map.of("slidegate.policies.reports.limits", "3/1h",
                "slidegate.policies.reports.plans.pro.limits", "30/1h", "slidegate.plans.api-keys.Pro", "k1")));
        assertEquals("Invalid Slidegate configuration: slidegate.plans.api-keys.Pro: no policy has a plan 'Pro': the plan "
                + "is 'pro' (plan names are case-sensitive here)",
                assertThrows(ConfigurationException.class, () -> catalog(plans)).getMessage());
        PolicyRegistry none = new PolicyRegistry(config(Map.of("slidegate.policies.reports.limits", "3/1h",
                "slidegate.plans.api-keys.gold", "k1")));
        String noPlans = assertThrows(ConfigurationException.class, () -> catalog(none)).getMessage();
        assertTrue(noPlans.endsWith("a plan 'gold': no policy has plans (slidegate.policies.<name>.plans.<plan>.limits)"),
                noPlans);
        assertEquals(List.of(), catalog(new PolicyRegistry(config(Map.of("slidegate.policies.reports.limits", "3/1h",
                "slidegate.policies.reports.plans.pro.limits", "30/1h", "slidegate.plans.api-keys.pro", "k1")))).warnings());
        // what start-up cannot decide (the RateLimiter API may use 'logn') is one warning naming it
        // (one typo away: the demo's 'exports', two from 'reports', is the RateLimiter API's and says nothing)
        PolicyRegistry near = new PolicyRegistry(config(Map.of("slidegate.policies.logn.limits", "3/1m",
                "slidegate.policies.exports.limits", "3/1m")));
        PolicyCatalog nearCatalog = catalog(near, login, "LoginResource#login",
                new PolicyRegistry.Declared("reports", List.of("5/1m"), "", ""), "ReportResource#list");
        assertEquals(List.of("slidegate.policies.logn.* configures a policy that no @RateLimited method or path uses, and "
                + "'login' is one: a misspelling? (the RateLimiter API may use 'logn'; start-up cannot tell)"),
                nearCatalog.warnings());
        assertEquals(java.util.Set.of("login", "logn", "exports", "reports"), nearCatalog.policies().keySet(),
                "configured policies nothing uses are in the catalog, for the RateLimiter API and the admin");
    }

    @Test
    void costAndDryRunComeFromTheAnnotationOrConfiguration() {
        PolicyRegistry registry = new PolicyRegistry(
                config(Map.of("slidegate.policies.c.cost", "7", "slidegate.policies.c.dry-run", "true")));
        PolicyRegistry.Declared declared = new PolicyRegistry.Declared("c", List.of("10/1m"), "", "", null, false, 2);
        assertEquals(7, registry.resolve(declared, "X#m").cost(), "the policy's configuration beats the annotation");
        assertTrue(registry.resolve(declared, "X#m").policy().dryRun());
        PolicyRegistry plain = new PolicyRegistry(config(Map.of()));
        assertEquals(2, plain.resolve(declared, "X#m").cost());
        assertEquals(1, plain.resolve(new PolicyRegistry.Declared("u", List.of("10/1m"), "", ""), "X#u").cost(), "built-in: 1");
        assertEquals(
                "Invalid Slidegate configuration: X#m: @RateLimited(cost): '-1' is not a cost: expected a whole number of permits, "
                        + "at least 1 (or 0 to leave it to configuration)",
                assertThrows(ConfigurationException.class,
                        () -> plain.resolve(new PolicyRegistry.Declared("n", List.of("10/1m"), "", "", null, null, -1), "X#m"))
                        .getMessage());
        assertEquals(
                "Invalid Slidegate configuration: slidegate.policies.c.cost: '0' is not a cost: expected a whole number of permits, at least 1",
                assertThrows(ConfigurationException.class,
                        () -> new PolicyRegistry(config(Map.of("slidegate.policies.c.cost", "0"))))
                        .getMessage());
    }

    // max-wait: the policy's configuration, else the annotation, else the defaults; a plan may have its own; a bad one is
    // a sentence naming where it was given
    @Test
    void maxWaitComesFromConfigurationOrTheAnnotationAndPlansMayDiffer() {
        PolicyRegistry registry = new PolicyRegistry(config(Map.of("slidegate.policies.c.max-wait", "2s",
                "slidegate.policies.c.plans.pro.limits", "100/1m", "slidegate.policies.c.plans.pro.max-wait", "500ms",
                "slidegate.policies.c.plans.free.limits", "10/1m", "slidegate.defaults.max-wait", "250ms")));
        PolicyRegistry.Declared declared = new PolicyRegistry.Declared("c", List.of("10/1m"), "", "", null, null, 0, "9s");
        PolicyRegistry.Resolved c = registry.resolve(declared, "X#c");
        assertEquals(2_000_000, c.policy().maxWaitMicros(), "the policy's configuration beats the annotation");
        assertEquals(500_000, c.plans().get("pro").maxWaitMicros(), "a plan's own");
        assertEquals(2_000_000, c.plans().get("free").maxWaitMicros(), "a plan without one: the policy's");
        assertEquals(9_000_000, registry
                .resolve(new PolicyRegistry.Declared("a", List.of("10/1m"), "", "", null, null, 0, "9s"), "X#a").policy()
                .maxWaitMicros(), "the annotation beats the defaults");
        assertEquals(250_000, registry.resolve(new PolicyRegistry.Declared("d", List.of("10/1m"), "", ""), "X#d").policy()
                .maxWaitMicros(), "the defaults");
        assertEquals(0, new PolicyRegistry(config(Map.of())).resolve(new PolicyRegistry.Declared("z", List.of("10/1m"), "", ""),
                "X#z").policy().maxWaitMicros(), "built in: refuse at once");
        assertEquals("Invalid Slidegate configuration: X#m: @RateLimited(maxWait): 'soon' is not a duration: expected e.g. "
                + "2s, 500ms or 0",
                assertThrows(ConfigurationException.class, () -> registry.resolve(
                        new PolicyRegistry.Declared("m", List.of("10/1m"), "", "", null, null, 0, "soon"), "X#m"))
                        .getMessage());
        assertEquals("Invalid Slidegate configuration: slidegate.policies.c.max-wait: 'PT48H' is not a max-wait: expected 0 "
                + "(refuse at once) to 1d, e.g. 2s or 500ms",
                assertThrows(ConfigurationException.class,
                        () -> new PolicyRegistry(config(Map.of("slidegate.policies.c.max-wait", "2d")))).getMessage());
    }

    // what an operator can mistype about calls in flight is one sentence naming the setting
    @Test
    void concurrencySettingsThatCannotHoldAreRefused() {
        Map<String, String> bad = new java.util.LinkedHashMap<>();
        bad.put("slidegate.policies.e.max-in-flight=0", "slidegate.policies.e.max-in-flight: '0' is not a number of calls");
        bad.put("slidegate.policies.e.max-in-flight=2;slidegate.policies.e.limits=5/1s",
                "slidegate.policies.e.max-in-flight: a policy limits calls in flight or calls per window, not both: remove its "
                        + "limits");
        bad.put("slidegate.policies.e.max-in-flight=2;slidegate.policies.e.strategy=fixed-window",
                "remove its strategy");
        bad.put("slidegate.policies.e.strategy=concurrency", "calls in flight are limited by max-in-flight, not a strategy");
        bad.put("slidegate.policies.e.max-in-flight=2;slidegate.policies.e.count-rejected=true",
                "slidegate.policies.e.count-rejected: a concurrency policy charges no refused call");
        bad.put("slidegate.policies.e.max-in-flight=2;slidegate.policies.e.lease=100ms",
                "slidegate.policies.e.lease: 'PT0.1S' is not a lease time: expected 1s to 1d");
        bad.put("slidegate.policies.e.limits=5/1s;slidegate.policies.e.lease=10s",
                "slidegate.policies.e.lease: only a policy with max-in-flight has leases");
        bad.put("slidegate.defaults.max-in-flight=2", "a concurrency limit is a policy of its own, not a default");
        bad.put("slidegate.policies.e.max-in-flight=2;slidegate.policies.e.plans.pro.limits=5/1s",
                "slidegate.policies.e.plans.pro: the policy limits calls in flight (max-in-flight): give the plan its "
                        + "max-in-flight");
        bad.put("slidegate.policies.e.limits=5/1s;slidegate.policies.e.plans.pro.max-in-flight=5",
                "slidegate.policies.e.plans.pro.max-in-flight: the policy limits calls per window");
        assertRefused(bad);
        PolicyRegistry plans = new PolicyRegistry(config(Map.of("slidegate.policies.e.max-in-flight", "2",
                "slidegate.policies.e.lease", "5s", "slidegate.policies.e.plans.pro.max-in-flight", "8")));
        PolicyRegistry.Resolved r = plans.resolve(new PolicyRegistry.Declared("e", List.of(), "", ""), "X#e");
        assertEquals(2, r.policy().maxInFlight());
        assertEquals(8, r.forPlan("pro").maxInFlight(), "a plan's own max-in-flight");
        assertEquals(5_000_000L, r.forPlan("pro").leaseMicros(), "the policy's lease");
    }

    // one rule for every member: the annotation beats the defaults both ways, so it can turn off what the defaults turn on
    @Test
    void anAnnotationCanSetAFlagOffAndCostOneAgainstTheDefaults() {
        PolicyRegistry registry = new PolicyRegistry(
                config(Map.of("slidegate.defaults.dry-run", "true", "slidegate.defaults.count-rejected",
                        "true", "slidegate.defaults.cost", "3")));
        PolicyRegistry.Resolved set = registry
                .resolve(new PolicyRegistry.Declared("set", List.of("10/1m"), "", "", false, false, 1), "X#set");
        assertEquals(false, set.policy().dryRun());
        assertEquals(false, set.policy().countRejected());
        assertEquals(1, set.cost());
        PolicyRegistry.Resolved unset = registry.resolve(new PolicyRegistry.Declared("unset", List.of("10/1m"), "", ""),
                "X#unset");
        assertEquals(true, unset.policy().dryRun());
        assertEquals(true, unset.policy().countRejected());
        assertEquals(3, unset.cost());
        assertEquals(null, RateLimited.Toggle.UNSET.value());
        assertEquals(false, RateLimited.Toggle.OFF.value());
    }

    // methods sharing a policy may weigh differently: cost is not part of the policy's definition
    @Test
    void methodsSharingAPolicyMayCostDifferently() {
        PolicyRegistry registry = new PolicyRegistry(config(Map.of()));
        assertEquals(1,
                registry.resolve(new PolicyRegistry.Declared("api", List.of("10/1m"), "", "", null, null, 1), "X#read").cost());
        assertEquals(5, registry
                .resolve(new PolicyRegistry.Declared("api", List.of("10/1m"), "", "", null, null, 5), "X#export").cost());
    }

    @Test
    void theDefaultsTemplateFillsWhatNeitherConfigurationNorTheAnnotationSets() {
        PolicyRegistry registry = new PolicyRegistry(config(Map.of(
                "slidegate.defaults.limits", "30/1m", "slidegate.defaults.strategy", "fixed-window",
                "slidegate.defaults.key", "header:X-Api-Key", "slidegate.defaults.dry-run", "true", "slidegate.defaults.cost",
                "2",
                "slidegate.policies.own.strategy", "sliding-log", "slidegate.policies.own.dry-run", "false")));
        PolicyRegistry.Declared bare = new PolicyRegistry.Declared("bare", List.of(), "", "");
        PolicyRegistry.Resolved r = registry.resolve(bare, "X#bare");
        assertEquals(List.of(Limit.parse("30/1m")), r.policy().limits());
        assertEquals(Strategy.FIXED_WINDOW, r.policy().strategy());
        assertEquals(new KeySource.Header("X-Api-Key"), r.key());
        assertTrue(r.policy().dryRun());
        assertEquals(2, r.cost());

        PolicyRegistry.Declared annotated = new PolicyRegistry.Declared("annotated", List.of("5/1s"), "sliding-log", "ip", null,
                null, 3);
        PolicyRegistry.Resolved a = registry.resolve(annotated, "X#annotated");
        assertEquals(List.of(Limit.parse("5/1s")), a.policy().limits(), "the annotation beats the defaults");
        assertEquals(Strategy.SLIDING_LOG, a.policy().strategy());
        assertEquals(new KeySource.Ip(), a.key());
        assertEquals(3, a.cost());

        PolicyRegistry.Resolved own = registry.resolve(new PolicyRegistry.Declared("own", List.of(), "fixed-window", ""),
                "X#own");
        assertEquals(Strategy.SLIDING_LOG, own.policy().strategy(), "the policy's configuration beats both");
        assertEquals(false, own.policy().dryRun());
        assertEquals(List.of(Limit.parse("30/1m")), own.policy().limits());
        assertTrue(unreadable(Map.of("slidegate.defaults.strategy", "x"))
                .contains("slidegate.defaults.strategy with the config value \"x\" threw an Exception whilst being converted "
                        + "'x' is not a strategy"));
    }

    @Test
    void everyStrategyIsSelectableByAnnotationAndConfiguration() {
        PolicyRegistry registry = new PolicyRegistry(config(Map.of("slidegate.policies.sc.strategy", "sliding-counter",
                "slidegate.policies.sc.cells", "4")));
        PolicyRegistry.Resolved tb = registry.resolve(new PolicyRegistry.Declared("tb", List.of("10/1s"), "token-bucket", ""),
                "X#tb");
        assertEquals(Strategy.TOKEN_BUCKET, tb.policy().strategy());
        PolicyRegistry.Resolved sc = registry.resolve(new PolicyRegistry.Declared("sc", List.of("10/1s"), "token-bucket", ""),
                "X#sc");
        assertEquals(Strategy.SLIDING_COUNTER, sc.policy().strategy(), "configuration beats the annotation");
        assertEquals(4, sc.policy().cells());
        assertEquals(10, tb.policy().cells(), "the default");
        assertEquals(
                "Invalid Slidegate configuration: slidegate.policies.sc.cells: '0' is not a number of cells: expected 1 to 100, e.g. 10",
                assertThrows(ConfigurationException.class,
                        () -> new PolicyRegistry(config(Map.of("slidegate.policies.sc.cells", "0"))))
                        .getMessage());
    }

    @Test
    void pathAttachmentsAreValidated() {
        PolicyRegistry registry = new PolicyRegistry(config(Map.of("slidegate.policies.a.limits", "1/1s",
                "slidegate.policies.a.paths", "/x/*,/y/**", "slidegate.policies.a.methods", "get,POST")));
        assertEquals(List.of(new PolicyMembers.Attachment("a", List.of("/x/*", "/y/**"), List.of("GET", "POST"))),
                registry.attachments());
        assertTrue(assertThrows(ConfigurationException.class,
                () -> new PolicyRegistry(config(Map.of("slidegate.policies.a.limits", "1/1s",
                        "slidegate.policies.a.paths", "x/*"))))
                .getMessage().contains("slidegate.policies.a.paths: 'x/*' is not a path pattern"));
        assertTrue(assertThrows(ConfigurationException.class,
                () -> new PolicyRegistry(config(Map.of("slidegate.policies.a.limits", "1/1s",
                        "slidegate.policies.a.paths", "/x", "slidegate.policies.a.methods", "GE T"))))
                .getMessage()
                .contains("slidegate.policies.a.methods: 'GE T' is not an HTTP method"));
        assertTrue(assertThrows(ConfigurationException.class,
                () -> new PolicyRegistry(config(Map.of("slidegate.policies.a.limits", "1/1s",
                        "slidegate.policies.a.methods", "GET"))))
                .getMessage().contains("methods is set without"));
        assertTrue(PathLimiter.glob("/a/*/c").matcher("/a/b/c").matches());
        assertTrue(!PathLimiter.glob("/a/*/c").matcher("/a/b/x/c").matches());
        assertTrue(PathLimiter.glob("/a/**").matcher("/a/b/x/c").matches());
        assertTrue(!PathLimiter.glob("/a.b").matcher("/axb").matches(), "everything but * is literal");
    }

    @Test
    void plansAreValidatedAtStartUp() {
        assertEquals(
                "Invalid Slidegate configuration: slidegate.policies.r.plans: 'Pro' and 'pro' overlap (plan names ignore case): keep one",
                assertThrows(ConfigurationException.class,
                        () -> new PolicyRegistry(config(Map.of("slidegate.policies.r.limits", "1/1s",
                                "slidegate.policies.r.plans.pro.limits", "5/1s", "slidegate.policies.r.plans.Pro.limits",
                                "9/1s"))))
                        .getMessage());
        assertEquals("Invalid Slidegate configuration: slidegate.policies.r.default-plan: 'gold' is not one of the plans [pro]",
                assertThrows(ConfigurationException.class,
                        () -> new PolicyRegistry(config(Map.of("slidegate.policies.r.default-plan", "gold",
                                "slidegate.policies.r.plans.pro.limits", "5/1s"))))
                        .getMessage());
        assertTrue(unreadable(Map.of("slidegate.policies.r.limits", "1/1s", "slidegate.policies.r.plans.pro.limits", "0/1s"))
                .contains("slidegate.policies.r.plans.pro.limits with the config value \"0/1s\""));
        assertTrue(assertThrows(ConfigurationException.class,
                () -> new ApiKeyPlans(
                        config(Map.of("slidegate.plans.api-keys.pro", "k1,k2", "slidegate.plans.api-keys.free", "k2"))))
                .getMessage().contains("an API key is listed under both plan"));
    }

    @Test
    void aDefaultPlanIsWhatCallersWithoutAPlanGet() {
        PolicyRegistry registry = new PolicyRegistry(config(Map.of("slidegate.policies.r.plans.free.limits", "5/1m",
                "slidegate.policies.r.plans.pro.limits", "50/1m", "slidegate.policies.r.default-plan", "free")));
        PolicyRegistry.Resolved r = catalog(registry).get("r");
        assertEquals("r.free", r.policy().name());
        assertEquals("r.pro", r.forPlan("pro").name());
        assertEquals("r.free", r.forPlan("gold").name());
    }

    @Test
    void aConfiguredPolicyWithoutLimitsThatNothingUsesIsAnError() {
        PolicyRegistry registry = new PolicyRegistry(config(Map.of("slidegate.policies.lonely.strategy", "fixed-window")));
        assertEquals("Invalid Slidegate configuration: slidegate.policies.lonely.limits is missing: expected " + Limit.EXPECTED,
                assertThrows(ConfigurationException.class, () -> catalog(registry)).getMessage());
    }

    // at start-up, the catalog refuses two definitions of one name; a method met later (one the build did not see)
    // must agree with the catalog's definition, and is refused in the same words
    @Test
    void twoDifferentDefinitionsOfOneNameAreAnError() throws Exception {
        String message = assertThrows(ConfigurationException.class,
                () -> binder(BASE).catalog(List.of(site("inline"), site("conflicting")))).getMessage();
        assertTrue(message.contains("Sample#conflicting defines policy 'inline' as [9/1s]"), message);
        assertTrue(
                message.contains(
                        "but Sample#inline defines it as [5/1s, 50/1m] fixed-window by header:X-Tenant counting rejected"),
                message);
        PolicyCatalog started = binder(BASE).catalog(List.of(site("inline")));
        MethodPolicies policies = new MethodPolicies(new PolicyRegistry(config(BASE)),
                name -> "tenant".equals(name) ? call -> "acme" : null, call -> null, started);
        assertEquals("inline", resolve(policies, "inline").policy().name());
        assertEquals(message, assertThrows(ConfigurationException.class, () -> resolve(policies, "conflicting")).getMessage());
        assertEquals(started.policies().keySet(), java.util.Set.of("inline", "products", "overridden"),
                "nothing is added to the catalog after start-up");
    }
}
