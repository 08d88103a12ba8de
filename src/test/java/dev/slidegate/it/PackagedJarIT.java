package dev.slidegate.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import dev.slidegate.testing.RedisServer;

/** The packaged jar, checked from outside as a new user would (the "done when" of the foundation issue). */
class PackagedJarIT {

    // five GET /api/products give 200 with RateLimit fields, the sixth a 429 with Retry-After >= 1,
    // RateLimit fields and a problem body; login with wrong credentials is refused after 5 attempts
    @Test
    void theJarLimitsProductsAndLogin() throws Exception {
        try (ServiceProcess service = ServiceProcess.start("-Dslidegate.policies.products.limits=5/10s")) {
            assertTrue(
                    service.log().contains("Slidegate store: memory (slidegate.store=auto and quarkus.redis.hosts is not set)"),
                    service.log());
            for (int i = 4; i >= 0; i--) {
                HttpResponse<String> ok = service.get("/api/products");
                assertEquals(200, ok.statusCode());
                assertEquals("\"products-10s\";q=5;w=10", ok.headers().firstValue("RateLimit-Policy").orElseThrow());
                assertEquals("\"products-10s\";r=" + i + ";t=10", ok.headers().firstValue("RateLimit").orElseThrow());
            }
            HttpResponse<String> refused = service.get("/api/products");
            assertEquals(429, refused.statusCode());
            assertTrue(Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow()) >= 1);
            assertTrue(refused.headers().firstValue("RateLimit").orElseThrow().startsWith("\"products-10s\";r=0;t="));
            assertEquals("application/problem+json;charset=UTF-8", refused.headers().firstValue("Content-Type").orElseThrow());
            assertTrue(refused.body().contains("\"status\":429") && refused.body().contains("\"policy\":\"products\""),
                    refused.body());

            for (int i = 0; i < 5; i++) {
                assertEquals(401, service.postJson("/api/login", "{\"username\":\"bob\",\"password\":\"nope\"}").statusCode());
            }
            assertEquals(429, service.postJson("/api/login", "{\"username\":\"bob\",\"password\":\"builder\"}").statusCode());
        }
    }

    // the demo's login counts only failed attempts (count-when=401): a success between failures gives its permit back; the
    // breach blocks the address (block-for) with Retry-After saying when the block ends; the fields name the caller's
    // partition (partition-key): the jar or the native executable, as users run them
    @Test
    void theJarCountsFailedLoginsBlocksAfterABreachAndNamesThePartition() {
        try (ServiceProcess service = ServiceProcess.start("-Dslidegate.policies.login.block-for=5m",
                "-Dslidegate.policies.login.partition-key=true")) {
            String wrong = "{\"username\":\"bob\",\"password\":\"nope\"}";
            String right = "{\"username\":\"bob\",\"password\":\"builder\"}";
            for (int i = 0; i < 4; i++) {
                assertEquals(401, service.postJson("/api/login", wrong).statusCode());
                HttpResponse<String> ok = service.postJson("/api/login", right);
                assertEquals(200, ok.statusCode(), "a success between failures: " + ok.body());
                String state = ok.headers().firstValue("RateLimit").orElseThrow();
                assertTrue(state.startsWith("\"login-1m\";r=" + (4 - i - 1) + ";") && state.contains(";pk=:"), state);
                assertTrue(ok.headers().firstValue("RateLimit-Policy").orElseThrow().contains(";pk=:"));
            }
            assertEquals(401, service.postJson("/api/login", wrong).statusCode()); // the fifth failure
            HttpResponse<String> blocked = service.postJson("/api/login", right);
            assertEquals(429, blocked.statusCode());
            assertEquals("300", blocked.headers().firstValue("Retry-After").orElseThrow(), blocked.body());
        }
    }

    // behind a trusted proxy the forwarded client is limited, a forged leftmost entry changes nothing;
    // a key on the pro plan gets the pro limits and fields
    @Test
    void theJarHonoursTrustedProxiesAndPlans() {
        try (ServiceProcess service = ServiceProcess.start("-Dslidegate.policies.products.limits=2/10s",
                "-Dslidegate.http.trusted-proxies=127.0.0.0/8,::1")) {
            assertEquals(200, service.get("/api/products", "X-Forwarded-For", "203.0.113.5").statusCode());
            assertEquals(200, service.get("/api/products", "X-Forwarded-For", "1.1.1.1, 203.0.113.5").statusCode());
            assertEquals(429, service.get("/api/products", "X-Forwarded-For", "2.2.2.2, 203.0.113.5").statusCode());
            assertEquals(200, service.get("/api/products", "X-Forwarded-For", "203.0.113.6").statusCode());

            HttpResponse<String> pro = service.get("/api/reports", "X-Api-Key", "demo-pro-key");
            assertEquals(200, pro.statusCode());
            assertEquals("\"reports.pro-1h\";q=10000;w=3600", pro.headers().firstValue("RateLimit-Policy").orElseThrow());
            HttpResponse<String> free = service.get("/api/reports", "X-Api-Key", "someone-else");
            assertEquals("\"reports-1h\";q=100;w=3600", free.headers().firstValue("RateLimit-Policy").orElseThrow());
        }
    }

    // bad configuration stops start-up with one sentence naming the property, and no stack trace
    // (each case is a process of its own that stops before it listens: two at a time, pom.xml; one case of each way a
    // setting is checked, the sentences of every setting being SettingsCheckTest's)
    @ParameterizedTest
    @org.junit.jupiter.api.parallel.Execution(org.junit.jupiter.api.parallel.ExecutionMode.CONCURRENT)
    @CsvSource(delimiter = '|', value = {
            "-Dslidegate.policies.products.limits=0/1s | slidegate.policies.products.limits with the config value \"0/1s\" threw an Exception whilst being converted '0/1s' is not a limit",
            "-Dslidegate.policies.login.strategy=leaky | slidegate.policies.login.strategy with the config value \"leaky\" threw an Exception whilst being converted 'leaky' is not a strategy: expected one of sliding-log, fixed-window, sliding-counter, token-bucket",
            "-Dslidegate.policies.reports.key=cookie | ReportResource#list: policy 'reports' keys callers by 'cookie', but there is no @Named(\"cookie\") KeyResolver bean",
            "-Dslidegate.policies.reports.key=ip+ | slidegate.policies.reports.key with the config value \"ip+\" threw an Exception whilst being converted 'ip+' is not a key source",
            "-Dslidegate.http.trusted-proxies=10.0.0.0/33 | slidegate.http.trusted-proxies: '10.0.0.0/33' is not an address or CIDR",
            "-Dslidegate.policies.products.cost=0 | slidegate.policies.products.cost: '0' is not a cost",
            "-Dslidegate.policies.reports.plans.Pro.limits=5/1s | slidegate.policies.reports.plans: 'Pro' and 'pro' overlap",
            "-Dslidegate.policies.products.paths=nope | slidegate.policies.products.paths: 'nope' is not a path pattern",
            "-Dslidegate.store=disk | slidegate.store with the config value \"disk\" threw an Exception whilst being converted 'disk' is not a store: expected auto, memory or redis",
            "-Dslidegate.store=redis | slidegate.store=redis needs quarkus.redis.hosts",
            "-Dslidegate.redis.batch-size=0 | slidegate.redis.batch-size: '0' is out of range: between 1 (each decision on its own) and 1000",
            "-Dslidegate.policies.orphan.key=global | slidegate.policies.orphan.limits is missing" })
    void badConfigurationFailsWithOneSentence(String property, String expected) throws Exception {
        assertStoppedWithOneSentence(ServiceProcess.runToExit(property), expected);
    }

    /**
     * The service stopped, saying {@code expected} in one line and no stack trace: Slidegate's own sentence, or the one
     * SmallRye Config writes for a typed setting whose value does not convert ({@code SRCFG00039}, naming the property and
     * the value, with Slidegate's sentence).
     */
    private static void assertStoppedWithOneSentence(ServiceProcess.Result result, String expected) {
        assertNotEquals(0, result.exitCode(), result.output());
        List<String> lines = result.output().lines()
                .filter(l -> l.contains("Invalid Slidegate configuration") || l.contains("SRCFG00039")).toList();
        assertEquals(1, lines.size(), result.output());
        assertTrue(lines.get(0).contains(expected), lines.get(0));
        assertFalse(result.output().lines().anyMatch(l -> l.startsWith("\tat ")), "no stack trace: " + result.output());
    }

    // the same settings as environment variables get the same check and the same sentence, and a variable under
    // SLIDEGATE_ that is no setting (misspelled) is refused by name; so are names that miss what they mean by case
    @ParameterizedTest
    @org.junit.jupiter.api.parallel.Execution(org.junit.jupiter.api.parallel.ExecutionMode.CONCURRENT)
    @CsvSource(delimiter = '|', value = {
            "SLIDEGATE_POLICIES_PRODUCTS_COUNT_REJECTED=ture | slidegate.policies.products.count-rejected (environment variable SLIDEGATE_POLICIES_PRODUCTS_COUNT_REJECTED): 'ture' is not a boolean",
            "SLIDEGATE_POLICES_LOGIN_LIMITS=1/1s | SLIDEGATE_POLICES_LOGIN_LIMITS (an environment variable) is no Slidegate setting",
            "SLIDEGATE_POLICIES_PRODUCTS_LIMITS=0/1s | slidegate.policies.products.limits with the config value \"0/1s\" threw an Exception whilst being converted '0/1s' is not a limit",
            "SLIDEGATE_PLANS_API_KEYS_PRO2=k9 | slidegate.plans.api-keys.pro2: no policy has a plan 'pro2'; the plans are [pro]" })
    void badEnvironmentFailsWithOneSentence(String variable, String expected) throws Exception {
        String[] pair = variable.split("=", 2);
        assertStoppedWithOneSentence(ServiceProcess.runToExit(java.util.Map.of(pair[0], pair[1])), expected);
    }

    // names that miss what they mean only by case: the settings of 'Login' never reached @RateLimited("login"), and API
    // keys listed under 'Pro' never got the plan 'pro'
    @ParameterizedTest
    @org.junit.jupiter.api.parallel.Execution(org.junit.jupiter.api.parallel.ExecutionMode.CONCURRENT)
    @CsvSource(delimiter = '|', value = {
            "-Dslidegate.policies.Login.limits=1/1m | slidegate.policies.Login.*: there is no policy 'Login', but there is 'login'",
            "-Dslidegate.plans.api-keys.Pro=k9 | slidegate.plans.api-keys.Pro: no policy has a plan 'Pro': the plan is 'pro'" })
    void aNameInAnotherCaseFailsWithOneSentence(String property, String expected) throws Exception {
        badConfigurationFailsWithOneSentence(property, expected);
    }

    // a property under slidegate. that Slidegate does not read (a typo) is refused by Quarkus itself,
    // naming it, with no stack trace
    @Test
    void aMisspeltSettingIsRefusedByName() throws Exception {
        ServiceProcess.Result result = ServiceProcess.runToExit("-Dslidegate.polices.login.limits=1/1s");
        assertNotEquals(0, result.exitCode(), result.output());
        assertTrue(result.output().contains("slidegate.polices.login.limits in SysPropConfigSource does not map to any root"),
                result.output());
        assertFalse(result.output().lines().anyMatch(l -> l.startsWith("\tat ")), "no stack trace: " + result.output());
    }

    // two instances against one redis-server, with the shipped defaults, products at 20/10m (a window
    // no run can outlast, so no call can fall outside it): 60 calls from one client spread over both
    // -> exactly 20 admitted
    @Test
    void twoInstancesShareOneWindowThroughRedis() {
        try (RedisServer redis = RedisServer.start();
                ServiceProcess a = ServiceProcess.start("-Dquarkus.redis.hosts=" + redis.uri(),
                        "-Dslidegate.policies.products.limits=20/10m");
                ServiceProcess b = ServiceProcess.start("-Dquarkus.redis.hosts=" + redis.uri(),
                        "-Dslidegate.policies.products.limits=20/10m")) {
            assertTrue(a.log().contains("Slidegate store: redis (slidegate.store=auto and quarkus.redis.hosts is set)"));
            long start = System.nanoTime();
            int admitted = 0;
            int refused = 0;
            for (int i = 0; i < 60; i++) {
                int status = (i % 2 == 0 ? a : b).get("/api/products").statusCode();
                admitted += status == 200 ? 1 : 0;
                refused += status == 429 ? 1 : 0;
            }
            long millis = (System.nanoTime() - start) / 1_000_000;
            System.out.printf("two instances: 60 calls in %d ms, %d admitted%n", millis, admitted);
            assertEquals(20, admitted);
            assertEquals(40, refused);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
