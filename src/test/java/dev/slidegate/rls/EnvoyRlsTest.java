package dev.slidegate.rls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import com.google.protobuf.UInt64Value;

import dev.slidegate.config.PolicyCatalog;
import dev.slidegate.config.StoreStack;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * Envoy's rate-limit service as a client no one here wrote calls it: the Java stubs Envoy's project publishes
 * ({@code io.envoyproxy.controlplane:api}), over gRPC, against the rules of {@code src/test/resources/rls/edge.yaml}
 * (envoyproxy/ratelimit's format). The oracle is the client's own count of {@code OK} answers.
 */
@QuarkusTest
@TestProfile(dev.slidegate.http.SharedProfiles.Demo.class)
@Timeout(60)
class EnvoyRlsTest {

    private static ManagedChannel channel;
    private static RateLimitServiceGrpc.RateLimitServiceBlockingStub rls;

    @Inject
    StoreStack stack;
    @Inject
    PolicyCatalog catalog;

    @BeforeAll
    static void connect() {
        channel = NettyChannelBuilder.forAddress("127.0.0.1", RlsServer.port()).usePlaintext().build();
        rls = RateLimitServiceGrpc.newBlockingStub(channel);
    }

    @AfterAll
    static void close() throws InterruptedException {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }

    @BeforeEach
    void reset() {
        catalog.policies().values().stream().filter(r -> r.name().startsWith("rls.")).forEach(r -> {
            for (String key : List.of("api_key=k1", "api_key=k2", "api_key=gold", "tenant=acme|user=u1",
                    "tenant=vip|user=u1", "trial=t", "files=report-*", "api_key=" + "x".repeat(10_000))) {
                stack.inspection().reset(r.policy(), dev.slidegate.engine.CallerKeys.bounded(
                        dev.slidegate.engine.CallerKeys.custom(key))).toCompletableFuture().join();
            }
        });
    }

    private static RateLimitDescriptor descriptor(String... keyValues) {
        RateLimitDescriptor.Builder d = RateLimitDescriptor.newBuilder();
        for (int i = 0; i < keyValues.length; i += 2) {
            d.addEntries(RateLimitDescriptor.Entry.newBuilder().setKey(keyValues[i]).setValue(keyValues[i + 1]));
        }
        return d.build();
    }

    private static RateLimitResponse ask(String domain, RateLimitDescriptor... descriptors) {
        return rls.withDeadlineAfter(10, TimeUnit.SECONDS)
                .shouldRateLimit(
                        RateLimitRequest.newBuilder().setDomain(domain).addAllDescriptors(List.of(descriptors)).build());
    }

    private static String header(RateLimitResponse r, String name) {
        return r.getResponseHeadersToAddList().stream().filter(h -> h.getKey().equals(name)).map(h -> h.getValue())
                .findFirst().orElse(null);
    }

    @Test
    void anApiKeyGetsItsLimitExactlyWithItsStateAndHeaders() {
        for (int remaining = 2; remaining >= 0; remaining--) {
            RateLimitResponse r = ask("edge", descriptor("api_key", "k1"));
            assertEquals(Code.OK, r.getOverallCode());
            DescriptorStatus s = r.getStatuses(0);
            assertEquals(3, s.getCurrentLimit().getRequestsPerUnit());
            assertEquals(RateLimitResponse.RateLimit.Unit.HOUR, s.getCurrentLimit().getUnit());
            assertEquals(remaining, s.getLimitRemaining());
            assertTrue(s.getDurationUntilReset().getSeconds() > 0 && s.getDurationUntilReset().getSeconds() <= 3600,
                    s.getDurationUntilReset().toString());
            assertEquals("\"" + s.getCurrentLimit().getName() + "\"", "\"\""); // the rule names no limit
            // the status to the microsecond, the header in whole seconds, rounded up
            long resetMicros = s.getDurationUntilReset().getSeconds() * 1_000_000 + s.getDurationUntilReset().getNanos() / 1000;
            assertTrue(header(r, "RateLimit").endsWith(";r=" + remaining + ";t=" + dev.slidegate.api.LimitState.wholeSeconds(
                    resetMicros)), header(r, "RateLimit") + " " + s.getDurationUntilReset());
            assertTrue(header(r, "RateLimit-Policy").contains(";q=3;w=3600"), header(r, "RateLimit-Policy"));
        }
        RateLimitResponse refused = ask("edge", descriptor("api_key", "k1"));
        assertEquals(Code.OVER_LIMIT, refused.getOverallCode());
        assertEquals(Code.OVER_LIMIT, refused.getStatuses(0).getCode());
        assertEquals(0, refused.getStatuses(0).getLimitRemaining());
        // another key has its own window
        assertEquals(Code.OK, ask("edge", descriptor("api_key", "k2")).getOverallCode());
    }

    @Test
    void aRuleWithTheValueWinsOverTheKeysRule() {
        for (int i = 0; i < 5; i++) {
            assertEquals(Code.OK, ask("edge", descriptor("api_key", "gold")).getOverallCode(), "call " + (i + 1));
        }
        assertEquals(Code.OVER_LIMIT, ask("edge", descriptor("api_key", "gold")).getOverallCode());
    }

    @Test
    void zeroRequestsRefusesAndNoRuleAdmits() {
        RateLimitResponse blocked = ask("edge", descriptor("remote_address", "10.0.0.9"));
        assertEquals(Code.OVER_LIMIT, blocked.getOverallCode());
        assertEquals(0, blocked.getStatuses(0).getCurrentLimit().getRequestsPerUnit());
        RateLimitResponse free = ask("edge", descriptor("remote_address", "10.0.0.10"));
        assertEquals(Code.OK, free.getOverallCode());
        assertFalse(free.getStatuses(0).hasCurrentLimit());
        // a descriptor deeper than the rules, an unknown domain: no limit
        assertEquals(Code.OK, ask("edge", descriptor("api_key", "k1", "path", "/x")).getOverallCode());
        try (dev.slidegate.testing.LogCapture log = dev.slidegate.testing.LogCapture.of("dev.slidegate")) {
            for (int i = 0; i < 3; i++) {
                RateLimitResponse unknown = ask("nobody", descriptor("api_key", "k1"));
                assertEquals(Code.OK, unknown.getOverallCode());
                assertFalse(unknown.getStatuses(0).hasCurrentLimit());
            }
            // a mistyped domain lifts every limit: said, once
            assertEquals(List.of("WARN Envoy's rate-limit service: domain 'nobody' has no rules (slidegate.rls.config has "
                    + "[edge]); its requests are answered OK, without a limit (said once)"),
                    log.lines().stream().filter(l -> l.contains("domain 'nobody'")).toList());
        }
    }

    @Test
    void aRefusedDescriptorChargesNoOtherOfTheRequest() {
        for (int i = 0; i < 3; i++) {
            ask("edge", descriptor("api_key", "k1"));
        }
        // k1 is spent: the request is refused, and k2 (asked with it) is not charged
        for (int i = 0; i < 5; i++) {
            RateLimitResponse r = ask("edge", descriptor("api_key", "k2"), descriptor("api_key", "k1"));
            assertEquals(Code.OVER_LIMIT, r.getOverallCode());
            assertEquals(Code.OK, r.getStatuses(0).getCode());
            assertEquals(3, r.getStatuses(0).getLimitRemaining(), "k2 was not charged");
            assertEquals(Code.OVER_LIMIT, r.getStatuses(1).getCode());
        }
        for (int i = 0; i < 3; i++) {
            assertEquals(Code.OK, ask("edge", descriptor("api_key", "k2")).getOverallCode());
        }
        assertEquals(Code.OVER_LIMIT, ask("edge", descriptor("api_key", "k2")).getOverallCode());
    }

    @Test
    void hitsAddendIsTheCostAndAHugeOneChargesNothing() {
        RateLimitResponse two = rls.shouldRateLimit(RateLimitRequest.newBuilder().setDomain("edge")
                .addDescriptors(descriptor("api_key", "k1")).setHitsAddend(2).build());
        assertEquals(1, two.getStatuses(0).getLimitRemaining());
        RateLimitDescriptor huge = descriptor("api_key", "k1").toBuilder().setHitsAddend(UInt64Value.of(-1L)).build();
        RateLimitResponse refused = rls.shouldRateLimit(RateLimitRequest.newBuilder().setDomain("edge").addDescriptors(huge)
                .build());
        assertEquals(Code.OVER_LIMIT, refused.getOverallCode());
        RateLimitResponse peek = rls.shouldRateLimit(RateLimitRequest.newBuilder().setDomain("edge")
                .addDescriptors(descriptor("api_key", "k1").toBuilder().setHitsAddend(UInt64Value.of(0))).build());
        assertEquals(Code.OK, peek.getOverallCode());
        assertEquals(1, peek.getStatuses(0).getLimitRemaining(), "hits_addend 0 looks without charging");
        assertEquals(Code.OK, ask("edge", descriptor("api_key", "k1")).getOverallCode(), "the huge cost charged nothing");
        assertEquals(Code.OVER_LIMIT, ask("edge", descriptor("api_key", "k1")).getOverallCode());
    }

    @Test
    void shadowModeAnswersOkUnlimitedSaysSoAndReplacesDropsTheNamedRule() {
        for (int i = 0; i < 3; i++) {
            RateLimitResponse r = ask("edge", descriptor("trial", "t"));
            assertEquals(Code.OK, r.getOverallCode(), "shadow mode, call " + (i + 1));
        }
        RateLimitResponse unlimited = ask("edge", descriptor("ldap", "anyone"));
        assertEquals(Code.OK, unlimited.getOverallCode());
        assertEquals(0xFFFF_FFFFL, Integer.toUnsignedLong(unlimited.getStatuses(0).getLimitRemaining()));
        // acme's per_user (2 a minute) is replaced when the vip rule (4) applies in the same request
        for (int i = 0; i < 4; i++) {
            RateLimitResponse r = ask("edge", descriptor("tenant", "acme", "user", "u1"),
                    descriptor("tenant", "vip", "user", "u1"));
            assertEquals(Code.OK, r.getOverallCode(), "call " + (i + 1));
            assertFalse(r.getStatuses(0).hasCurrentLimit(), "replaced");
        }
        assertEquals(Code.OVER_LIMIT, ask("edge", descriptor("tenant", "acme", "user", "u1"),
                descriptor("tenant", "vip", "user", "u1")).getOverallCode());
        // alone, acme's own rule still has all its room: the replaced rule was never charged
        assertEquals(1, ask("edge", descriptor("tenant", "acme", "user", "u1")).getStatuses(0).getLimitRemaining());
    }

    @Test
    void aSharedThresholdCountsEveryMatchingValueTogether() {
        assertEquals(Code.OK, ask("edge", descriptor("files", "report-a.pdf")).getOverallCode());
        assertEquals(Code.OK, ask("edge", descriptor("files", "report-b.csv")).getOverallCode());
        assertEquals(Code.OVER_LIMIT, ask("edge", descriptor("files", "report-c.txt")).getOverallCode());
    }

    @Test
    void badRequestsGetASentenceAndHugeValuesAnAnswer() {
        StatusRuntimeException noDescriptor = assertThrows(StatusRuntimeException.class,
                () -> rls.shouldRateLimit(RateLimitRequest.newBuilder().setDomain("edge").build()));
        assertEquals(Status.Code.INVALID_ARGUMENT, noDescriptor.getStatus().getCode());
        assertEquals("the rate limit descriptor list must not be empty", noDescriptor.getStatus().getDescription());
        StatusRuntimeException noDomain = assertThrows(StatusRuntimeException.class,
                () -> ask("", descriptor("api_key", "k1")));
        assertEquals(Status.Code.INVALID_ARGUMENT, noDomain.getStatus().getCode());
        RateLimitDescriptor[] many = new RateLimitDescriptor[RlsAnswers.MAX_DESCRIPTORS + 1];
        java.util.Arrays.fill(many, descriptor("api_key", "k2"));
        StatusRuntimeException tooMany = assertThrows(StatusRuntimeException.class, () -> ask("edge", many));
        assertEquals(Status.Code.INVALID_ARGUMENT, tooMany.getStatus().getCode());
        assertEquals(Code.OK, ask("edge", descriptor("api_key", "k2")).getOverallCode(), "the refused request charged nothing");
        // a 10 000-character key is counted as any other (its stored key is bounded)
        String big = "x".repeat(10_000);
        for (int i = 0; i < 3; i++) {
            assertEquals(Code.OK, ask("edge", descriptor("api_key", big)).getOverallCode());
        }
        assertEquals(Code.OVER_LIMIT, ask("edge", descriptor("api_key", big)).getOverallCode());
        // a message over the listener's bound is refused by the transport, and the service answers on
        StatusRuntimeException flood = assertThrows(StatusRuntimeException.class,
                () -> ask("edge", descriptor("api_key", "y".repeat((int) RlsServer.MAX_MESSAGE_BYTES + 1))));
        assertTrue(flood.getStatus().getCode() == Status.Code.RESOURCE_EXHAUSTED
                || flood.getStatus().getCode() == Status.Code.CANCELLED
                || flood.getStatus().getCode() == Status.Code.INTERNAL, flood.getStatus().toString());
        assertEquals(Code.OK, ask("edge", descriptor("api_key", "k1")).getOverallCode());
    }

    // a rule is a policy of the service: the admin lists its keys, an override blocks one, the metrics count it
    @Test
    void theAdminOverridesAndMetricsSeeTheRulesAsPolicies() {
        double admittedBefore = dev.slidegate.metrics.ObservabilityTest.counter("rls.edge.api_key", "admitted");
        ask("edge", descriptor("api_key", "k2"));
        List<String> keys = dev.slidegate.testing.AdminCredentials.admin().get("/admin/policies/rls.edge.api_key/keys")
                .then().statusCode(200).extract().jsonPath().getList("keys.key", String.class);
        assertEquals(1, keys.size(), keys.toString());
        String override = "/admin/policies/rls.edge.api_key/keys/" + keys.get(0) + "/override";
        dev.slidegate.testing.AdminCredentials.admin().contentType("application/json")
                .body("{\"block\": true, \"expiresIn\": 600, \"reason\": \"test\"}").put(override).then().statusCode(200);
        try {
            assertEquals(Code.OVER_LIMIT, ask("edge", descriptor("api_key", "k2")).getOverallCode(), "blocked by the override");
            assertEquals(Code.OK, ask("edge", descriptor("api_key", "k1")).getOverallCode(), "another key is not");
        } finally {
            dev.slidegate.testing.AdminCredentials.admin().delete(override).then().statusCode(204);
        }
        assertEquals(Code.OK, ask("edge", descriptor("api_key", "k2")).getOverallCode(), "the override lifted");
        // the store's decisions (a call the override blocked never reaches it): k2, k1, k2 again
        assertEquals(admittedBefore + 3, dev.slidegate.metrics.ObservabilityTest.counter("rls.edge.api_key", "admitted"));
    }

    // a flood of concurrent callers of one key: the clients' own count of OK answers is the limit, no more
    @Test
    void aFloodOfOneKeyIsAdmittedExactlyItsLimit() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Callable<Code>> calls = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                calls.add(() -> ask("edge", descriptor("api_key", "k1")).getOverallCode());
            }
            long ok = 0;
            for (Future<Code> f : pool.invokeAll(calls)) {
                ok += f.get() == Code.OK ? 1 : 0;
            }
            assertEquals(3, ok);
        } finally {
            pool.shutdownNow();
        }
    }
}
