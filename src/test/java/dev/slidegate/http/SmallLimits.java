package dev.slidegate.http;

import java.util.HashMap;
import java.util.Map;

import io.quarkus.test.junit.QuarkusTestProfile;

/** The demo policies with limits small enough to reach in a test, in a service with an OpenAPI filter of its own. */
public class SmallLimits implements QuarkusTestProfile {

    /**
     * MicroProfile OpenAPI's switch for scanning the service's endpoints: {@code true} in the profiles whose classes do not
     * read the OpenAPI document, where the scan was ~1 s of the ~4.7 s each test application takes to build
     * ({@code -Dquarkus.debug.dump-build-metrics=true}: {@code SmallRyeOpenApiProcessor#build}).
     */
    public static final String NO_OPENAPI_SCAN = "mp.openapi.scan.disable";

    @Override
    public Map<String, String> getConfigOverrides() {
        return base();
    }

    private static Map<String, String> base() {
        Map<String, String> config = new HashMap<>();
        config.put("slidegate.store", "memory");
        config.put("slidegate.policies.products.limits", "3/10m,5/1h");
        config.put("slidegate.policies.reports.limits", "3/1h");
        // RateLimiterTest's programmatic policy: no endpoint names it, so no other class's request meets it
        config.put("slidegate.policies.prog.limits", "3/1h");
        // and one whose calls may wait for their permits (issue 38), configured
        config.put("slidegate.policies.prog-wait.limits", "2/300ms");
        config.put("slidegate.policies.prog-wait.max-wait", "1s");
        // WaitingCallsTest's path policy: attached by configuration, its calls wait in the router
        config.put("slidegate.policies.wait-path.limits", "1/1s");
        config.put("slidegate.policies.wait-path.key", "global");
        config.put("slidegate.policies.wait-path.max-wait", "3s");
        config.put("slidegate.policies.wait-path.paths", "/test/wait/path");
        // ObservabilityTest's refusal summary: a path policy of its own, so the first refusal of the policy in this
        // JVM is its own, and its summary line is due at once
        config.put("slidegate.policies.observed.limits", "3/1h");
        config.put("slidegate.policies.observed.key", "header:X-Api-Key");
        config.put("slidegate.policies.observed.paths", "/test/observed");
        // issue 40: calls in flight, attached by configuration to paths (InFlightCallsTest)
        config.put("slidegate.policies.completions.unit", "tokens"); // (CostResource#completion)
        // issue 41: calls settled with the usage they report (SettledCallsTest, SettledResource)
        config.put("slidegate.policies.llm.settle", "true"); // (the limits are the annotations')
        config.put("slidegate.policies.llm-bean.settle", "true");
        config.put("slidegate.policies.llm-refund.settle", "true");
        config.put("slidegate.policies.llm-refund.refund-failures", "true");
        config.put("slidegate.policies.llm-header.settle", "true");
        config.put("slidegate.policies.llm-burst.settle", "true");
        config.put("slidegate.policies.llm-month.settle", "true");
        config.put("slidegate.policies.llm-header.usage-header", "X-Tokens-Used");
        config.put("slidegate.policies.llm-prompt.settle", "true");
        config.put("slidegate.policies.llm-prompt.cost-resolver", "prompt");
        config.put("slidegate.policies.llm-argument.cost-resolver", "first-argument");
        config.put("slidegate.policies.in-flight-path.max-in-flight", "1");
        config.put("slidegate.policies.in-flight-path.key", "header:X-Tenant");
        config.put("slidegate.policies.in-flight-path.paths", "/test/in-flight/path/*");
        // issue 39: a policy the RateLimiter paces calls of any client with, learning from what they answer
        config.put("slidegate.policies.prog-out.limits", "100/1m");
        config.put("slidegate.policies.prog-out.outgoing", "true");
        config.put("slidegate.policies.prog-out.max-wait", "3s");
        // the waiting benchmark's policies (WaitBenchmark; its smoke run uses this profile: one application fewer to build)
        config.put("slidegate.policies.bench-held.limits", "1000/1s");
        config.put("slidegate.policies.bench-free.limits", "1000000000/1s");
        config.put("slidegate.policies.bench-refused.limits", "1/1h");
        // issue 60: an LLM provider's quota of tokens, learned by the client's policy that counts tokens (EchoClient)
        config.put("slidegate.policies.echo-tpm.unit", "tokens");
        // HeaderTimeoutTest's: the demo's 10 s made the class wait 11 s; no other class sends its headers slowly
        config.put("slidegate.http.header-timeout", "3s");
        // a service's own OpenAPI filter: MicroProfile's setting holds one class, and Slidegate's must stay
        config.put("mp.openapi.filter", "dev.slidegate.http.ServiceOpenApiFilter");
        return config;
    }

    /**
     * These limits with more settings, given as key, value, key, value, ...; the service's OpenAPI document is not scanned
     * for (the only classes that read it run on this profile and {@code ServiceChoicesTest.LibraryDefaults}, which scans
     * again): ~1 s of each test application's build ({@link #NO_OPENAPI_SCAN}).
     */
    protected Map<String, String> plus(String... keyValues) {
        Map<String, String> config = base();
        config.put(NO_OPENAPI_SCAN, "true");
        for (int i = 0; i < keyValues.length; i += 2) {
            config.put(keyValues[i], keyValues[i + 1]);
        }
        return config;
    }
}
