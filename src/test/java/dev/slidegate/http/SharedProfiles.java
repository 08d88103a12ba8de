package dev.slidegate.http;

/**
 * Test profiles that several test classes share, because each profile is an augmentation and a start of the application
 * of its own (about 7 s a profile on a 2-core machine): classes whose settings cannot touch each other's requests share
 * one. Each profile names its classes and why they do not interfere; a class that needs a setting another class's
 * requests would feel gets a profile of its own.
 */
public final class SharedProfiles {

    private SharedProfiles() {
    }

    /**
     * {@code PathPoliciesTest}: policies attached by pattern to {@code /test/plain/**} and {@code /test/spell/**}, which no
     * other class here calls;
     * {@code CostAndDryRunTest}: {@code reports} in dry-run, with {@code /test/export}, {@code /test/huge} and
     * {@code /test/trial}; {@code AdminDisabledTest}: the admin API off, which neither of the other two uses.
     */
    public static class PathsDryRunNoAdmin extends SmallLimits {
        @Override
        public java.util.Map<String, String> getConfigOverrides() {
            return plus("slidegate.policies.plain-get.limits", "2/1h",
                    "slidegate.policies.plain-get.key", "ip+path",
                    "slidegate.policies.plain-get.paths", "/test/plain/*",
                    "slidegate.policies.plain-get.methods", "GET",
                    "slidegate.policies.files.limits", "3/1h",
                    "slidegate.policies.files.key", "header:X-Api-Key",
                    "slidegate.policies.files.paths", "/test/plain/files/**",
                    "slidegate.policies.both-ip.limits", "2/1h",
                    "slidegate.policies.both-ip.paths", "/test/plain/both/*",
                    "slidegate.policies.both-tenant.limits", "5/1h",
                    "slidegate.policies.both-tenant.key", "header:X-Tenant",
                    "slidegate.policies.both-tenant.paths", "/test/plain/both/*",
                    "slidegate.policies.spell-list.limits", "1/1h",
                    "slidegate.policies.spell-list.key", "header:X-Spell",
                    "slidegate.policies.spell-list.paths", "/test/spell",
                    "slidegate.policies.spell-list.methods", "GET",
                    "slidegate.policies.spell-item.limits", "1/1h",
                    "slidegate.policies.spell-item.key", "header:X-Spell",
                    "slidegate.policies.spell-item.paths", "/test/spell/*",
                    "slidegate.policies.spell-item.methods", "GET",
                    "slidegate.policies.reports.dry-run", "true",
                    "slidegate.admin.enabled", "false");
        }
    }

    /**
     * {@code AdminCorsTest}: CORS on for one origin, which only its requests name ({@code Origin}: the others send none);
     * {@code TrustedProxyTest}: a proxy on loopback, whose callers name themselves in {@code X-Forwarded-For} and have no
     * plan; {@code PlansTest}: plans by API key, its requests without {@code X-Forwarded-For} (so the client is the peer, as
     * without a proxy) and its keys on no other class's requests; {@code OverrideSourceSpiTest}: its own override source,
     * which holds nothing but while that test runs (and then only for its own keys).
     */
    public static class ProxyPlansAndOverrideSource extends SmallLimits {
        @Override
        public java.util.Map<String, String> getConfigOverrides() {
            // the test class is package-private: its source bean by name
            return plus("quarkus.arc.selected-alternatives", "dev.slidegate.admin.OverrideSourceSpiTest$TenantService",
                    "quarkus.http.cors.enabled", "true",
                    "quarkus.http.cors.origins", "http://app.example",
                    "quarkus.http.cors.access-control-allow-credentials", "true",
                    "slidegate.http.trusted-proxies", "127.0.0.0/8,::1",
                    "slidegate.policies.reports.plans.pro.limits", "5/1h",
                    "slidegate.policies.reports.plans.team.limits", "4/1h,100/1d",
                    "slidegate.plans.api-keys.pro", "pro-key-1,pro-key-2",
                    "slidegate.plans.api-keys.team", "team-key");
        }
    }

    /**
     * Redis (a redis-server of its own, with {@code slidegate.store=auto}, which picks it): {@code AdminPageBrowserTest}
     * (the live page; it flushes Redis before each test and counts the refusals it causes from the count it found);
     * {@code AdminBenchmarkSmokeTest} (and the {@code AdminBenchmark} it smoke-tests): the {@code bench} policy on
     * {@code /bench/*}, keyed by {@code X-Bench}, failing closed; {@code RedisDemoApiTest}: the demo API, and
     * {@code plain-get} on {@code /test/plain/*}, from a flushed Redis in each test; {@code RedisKeyFloodTest}: fills this
     * Redis to its {@code maxmemory} with API keys of {@code reports} from a flushed Redis, and lifts the limit again after
     * (the classes after it flush what it left). (Not {@code QuarkusProxyTest}: the
     * demo API's contract checks that a forged {@code X-Forwarded-For} changes nothing where no proxy is trusted.)
     */
    public static class OnRedis extends SmallLimits {
        @Override
        public java.util.Map<String, String> getConfigOverrides() {
            return plus("slidegate.store", "auto",
                    "slidegate.policies.plain-get.limits", "2/1h",
                    "slidegate.policies.plain-get.paths", "/test/plain/*",
                    "slidegate.policies.bench.limits", "10/1h,50/1d",
                    "slidegate.policies.bench.fail-mode", "closed", // a decision Redis could not make is a 503: counted
                    "slidegate.policies.bench.key", "header:X-Bench",
                    "slidegate.policies.bench.paths", "/bench/*",
                    "slidegate.policies.hot.limits", "1000/1s",
                    "slidegate.policies.hot.paths", "/test/plain/files/*/*",
                    "slidegate.policies.hot-off.limits", "1000/1s",
                    "slidegate.policies.hot-off.paths", "/test/plain/both/*",
                    "slidegate.policies.hot-off.take-ahead", "false");
        }

        @Override
        public java.util.List<TestResourceEntry> testResources() {
            return java.util.List.of(new TestResourceEntry(dev.slidegate.testing.RedisTestResource.class));
        }
    }

    /**
     * The demo as it ships ({@code application.properties}, none of {@link SmallLimits}' policies; no class here reads its
     * OpenAPI document, which is not scanned for), with Envoy's rate-limit
     * service on: {@code EnvoyRlsTest} (its rules' policies are named {@code rls.*}, which no other class calls, and it
     * speaks gRPC on a port of its own) and the classes that test the demo's own settings and their own endpoints
     * ({@code AnswerUsagesTest}, {@code BlockForTest}, {@code CountWhenTest}, {@code ProviderTokensTest},
     * {@code StructuredFieldsTest}).
     */
    public static class Demo implements io.quarkus.test.junit.QuarkusTestProfile {
        @Override
        public java.util.Map<String, String> getConfigOverrides() {
            return java.util.Map.of("slidegate.rls.enabled", "true", "slidegate.rls.port", "0", "slidegate.rls.host",
                    "127.0.0.1", "slidegate.rls.config", "src/test/resources/rls", SmallLimits.NO_OPENAPI_SCAN, "true");
        }
    }

    /**
     * {@code QuarkusProxyTest}: proxies configured in Quarkus' own {@code quarkus.http.proxy.*} only, the test client's
     * loopback address a proxy, on {@code products} and {@code /test/keys/quarkus-remote-address};
     * {@code KeyFloodTest}: {@code slidegate.memory.max-keys=200} and {@code reports} at 1/1h, flooded with API keys from
     * loopback without a forwarding header (so its caller is the proxy's own address, as everywhere without one), and
     * {@code /api/login}: neither of which the other class calls, and the key budget is each policy's own.
     */
    public static class ForwardingAndKeyBudget extends SmallLimits {
        @Override
        public java.util.Map<String, String> getConfigOverrides() {
            return plus("quarkus.http.proxy.proxy-address-forwarding", "true",
                    "quarkus.http.proxy.allow-x-forwarded", "true",
                    "quarkus.http.proxy.trusted-proxies", "127.0.0.1",
                    "slidegate.memory.max-keys", "200",
                    "slidegate.policies.reports.limits", "1/1h");
        }
    }
}
