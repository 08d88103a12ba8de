package dev.slidegate.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.slidegate.testing.Brackets;
import dev.slidegate.testing.Ports;
import dev.slidegate.testing.RedisServer;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;

/**
 * Envoy's rate-limit service of the packaged service (the jar, or the native executable with {@code -Dnative}), as
 * Envoy-shaped clients use it: the stubs Envoy's project publishes call two instances on one redis-server with the shipped
 * defaults, eight threads spread over both for a few seconds; every {@code OK} answer is bracketed on the clients' clock
 * ({@link Brackets}) and no window of 1 s may provably hold more than the rule's 20 of one key. The demo's own rules,
 * read beside the test's, answer as the README's recipe shows them; with Redis frozen, the shipped fail mode still limits
 * them.
 *
 * <p>
 * Named to run last of the integration tests (they run one at a time, by name): every full run on this machine in which
 * it ran before {@code WaitingInstancesIT} paced that test's warehouse below its floor (19-21 asks against 22), and
 * every run without it before, above (24-28); what it leaves behind in the test JVM is not found yet.
 */
@Timeout(120)
class ZEnvoyRlsIT {

    private static final int N = 20;
    private static final long W_NANOS = 1_000_000_000L;
    private static final long SECONDS = 4;

    private static RateLimitRequest request(String domain, String key) {
        return RateLimitRequest.newBuilder().setDomain(domain).addDescriptors(RateLimitDescriptor.newBuilder()
                .addEntries(RateLimitDescriptor.Entry.newBuilder().setKey("api_key").setValue(key))).build();
    }

    @Test
    void twoInstancesOnOneRedisAdmitNoMoreThanTheRuleInAnyWindow() throws Exception {
        Path rules = Files.createTempFile("edge", ".yaml");
        Files.writeString(rules, """
                domain: edge
                descriptors:
                  - key: api_key
                    rate_limit:
                      unit: second
                      requests_per_unit: %d
                """.formatted(N));
        int[] ports = { Ports.free(), Ports.free() };
        List<ManagedChannel> channels = new ArrayList<>();
        try (RedisServer redis = RedisServer.start();
                ServiceProcess.Fleet fleet = ServiceProcess.fleet(List.of(
                        properties(redis, rules, ports[0]), properties(redis, rules, ports[1])))) {
            List<RateLimitServiceGrpc.RateLimitServiceBlockingStub> stubs = new ArrayList<>();
            for (int port : ports) {
                ManagedChannel c = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
                channels.add(c);
                stubs.add(RateLimitServiceGrpc.newBlockingStub(c));
            }
            List<long[]> admitted = java.util.Collections.synchronizedList(new ArrayList<>());
            AtomicInteger calls = new AtomicInteger();
            AtomicInteger errors = new AtomicInteger();
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(SECONDS);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                RateLimitServiceGrpc.RateLimitServiceBlockingStub stub = stubs.get(t % 2);
                Thread th = new Thread(() -> {
                    while (System.nanoTime() < end) {
                        long sent = System.nanoTime();
                        try {
                            Code code = stub.withDeadlineAfter(10, TimeUnit.SECONDS).shouldRateLimit(request("edge", "hot"))
                                    .getOverallCode();
                            calls.incrementAndGet();
                            if (code == Code.OK) {
                                admitted.add(new long[] { sent, System.nanoTime() });
                            }
                        } catch (RuntimeException e) {
                            errors.incrementAndGet();
                        }
                    }
                });
                th.start();
                threads.add(th);
            }
            for (Thread th : threads) {
                th.join();
            }
            long[] sent = admitted.stream().mapToLong(x -> x[0]).toArray();
            long[] received = admitted.stream().mapToLong(x -> x[1]).toArray();
            int worst = Brackets.maxProvable(sent, received, W_NANOS);
            System.out.printf("Envoy's rate-limit service, two instances on Redis, %d s: %d calls, %d errors, %d OK "
                    + "(%.1f a second), at most %d provably within one window (N = %d)%n", SECONDS, calls.get(), errors.get(),
                    admitted.size(), admitted.size() / (double) SECONDS, worst, N);
            assertEquals(0, errors.get(), "every call was answered");
            assertTrue(worst <= N, worst + " OK answers lie within one window of 1 s");
            assertTrue(admitted.size() >= 0.8 * N * SECONDS, "only " + admitted.size() + " OK answers: over-cautious");
            theDemosRulesAnswerAsTheRecipeSays(stubs.get(0), fleet.instances().get(0), ports[0]);
            theRulesLimitByTheShippedFailModeWhileRedisIsFrozen(stubs.get(1), redis);
        } finally {
            for (ManagedChannel c : channels) {
                c.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
            Files.deleteIfExists(rules);
        }
    }

    private static String[] properties(RedisServer redis, Path rules, int port) {
        return new String[] { "-Dquarkus.redis.hosts=" + redis.uri(),
                "-Dslidegate.rls.config=" + rules + ",classpath:dev/slidegate/demo/envoy-rules.yaml",
                "-Dslidegate.rls.port=" + port };
    }

    // the demo's own rules (the README's recipe), read beside the test's: the recipe's key 3 a minute; what a client gets
    // wrong has its answer
    private static void theDemosRulesAnswerAsTheRecipeSays(RateLimitServiceGrpc.RateLimitServiceBlockingStub stub,
            ServiceProcess service, int port) throws java.io.IOException {
        RateLimitServiceGrpc.RateLimitServiceBlockingStub rls = stub.withDeadlineAfter(10, TimeUnit.SECONDS);
        for (int i = 0; i < 3; i++) {
            assertEquals(Code.OK, rls.shouldRateLimit(request("demo", "recipe-key")).getOverallCode());
        }
        var refused = rls.shouldRateLimit(request("demo", "recipe-key"));
        assertEquals(Code.OVER_LIMIT, refused.getOverallCode());
        assertTrue(refused.getResponseHeadersToAddList().stream()
                .anyMatch(h -> h.getKey().equals("RateLimit") && h.getValue().contains(";r=0;")),
                refused.getResponseHeadersToAddList().toString());
        var another = rls.shouldRateLimit(request("demo", "another-key"));
        assertEquals(Code.OK, another.getOverallCode());
        assertEquals(100, another.getStatuses(0).getCurrentLimit().getRequestsPerUnit(), "the rule's own rate: " + another);
        // the demo's plan table reaches its rules (slidegate.rls.plan-entry=api_key): its pro key has the pro plan's rate
        var pro = rls.shouldRateLimit(request("demo", "demo-pro-key"));
        assertEquals(Code.OK, pro.getOverallCode());
        assertEquals(1000, pro.getStatuses(0).getCurrentLimit().getRequestsPerUnit(), "plan pro's rate: " + pro);
        assertEquals(999, pro.getStatuses(0).getLimitRemaining(), "counted in the plan's window: " + pro);
        StatusRuntimeException empty = assertThrows(StatusRuntimeException.class,
                () -> rls.shouldRateLimit(RateLimitRequest.newBuilder().setDomain("demo").build()));
        assertEquals(Status.Code.INVALID_ARGUMENT, empty.getStatus().getCode());
        assertTrue(service.log().contains("Slidegate answers Envoy's rate-limit service on 0.0.0.0:" + port), service.log());
    }

    // Redis frozen (SIGSTOP): the shipped fail mode (local) decides each rule in process at its limit divided by the live
    // instances (the recipe's key: 3 a minute over 2 instances); every call is answered, and the rule still refuses
    private static void theRulesLimitByTheShippedFailModeWhileRedisIsFrozen(
            RateLimitServiceGrpc.RateLimitServiceBlockingStub stub, RedisServer redis) {
        redis.signal("STOP");
        try {
            List<String> codes = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                long sent = System.nanoTime();
                Code code = stub.withDeadlineAfter(10, TimeUnit.SECONDS).shouldRateLimit(request("demo", "recipe-key"))
                        .getOverallCode();
                codes.add(code + " in " + (System.nanoTime() - sent) / 1_000_000 + " ms");
            }
            System.out.println("Envoy's rate-limit service, Redis frozen, the recipe's key four times: " + codes);
            assertTrue(codes.get(0).startsWith("OK "), "decided in process: " + codes);
            assertTrue(codes.get(3).startsWith("OVER_LIMIT "), "the rule still limits in process: " + codes);
        } finally {
            redis.signal("CONT");
        }
    }
}
