package dev.slidegate.rls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.slidegate.api.FailMode;
import dev.slidegate.api.Strategy;
import dev.slidegate.engine.Deciders;
import dev.slidegate.memory.MemoryStore;
import dev.slidegate.rls.proto.Descriptor;
import dev.slidegate.rls.proto.RateLimitRequest;
import dev.slidegate.rls.proto.RateLimitResponse;
import dev.slidegate.rls.proto.RateLimitResponse.Code;
import dev.slidegate.testing.ManualClock;

/**
 * Every strategy {@code slidegate.rls.strategy} can name, answering {@code ShouldRateLimit} through the service's own
 * engine on a clock the test moves (the listener and Envoy's stubs are {@code EnvoyRlsTest}'s): a rule of 4 a minute
 * admits 4 with their {@code limit_remaining}, refuses the 5th with the time until the window frees one, and each
 * strategy frees its permits when its {@code duration_until_reset} says: the sliding log just past a minute after each
 * admission, the sliding counter when the cell of 6 s that holds it has left the minute, the fixed window at the next
 * aligned minute, the token bucket one permit per 15 s.
 */
@org.junit.jupiter.api.Timeout(10)
class RlsStrategiesTest {

    private static final String RULES = """
            domain: edge
            descriptors:
              - key: api_key
                rate_limit:
                  unit: minute
                  requests_per_unit: 4
            """;

    private final ManualClock clock = new ManualClock();

    private RlsAnswers answers(Strategy strategy) {
        MemoryStore store = new MemoryStore(clock, 1000);
        return answers(RULES, strategy, store, store);
    }

    /** The answers of {@code rules} on {@code store}, its looks through {@code inspection}. */
    private RlsAnswers answers(String rules, Strategy strategy, MemoryStore store,
            dev.slidegate.core.StoreInspection inspection) {
        return new RlsAnswers(new RlsPolicies(true, RlsRuleFiles.parse(Map.of("rules.yaml", rules)), strategy, FailMode.LOCAL),
                Deciders.on(store, clock), inspection, RlsAnswers.Headers.parse("ietf"));
    }

    private static RateLimitResponse ask(RlsAnswers answers, String key) {
        return answers.answer(RateLimitRequest.newBuilder().setDomain("edge").addDescriptors(Descriptor.newBuilder()
                .addEntries(Descriptor.Entry.newBuilder().setKey("api_key").setValue(key))).build()).toCompletableFuture()
                .join();
    }

    @ParameterizedTest
    @EnumSource(Strategy.class)
    void eachStrategyAdmitsItsLimitAndFreesItAsItSays(Strategy strategy) {
        RlsAnswers answers = answers(strategy);
        clock.advanceMicros(20_000_000); // 20 s into an aligned minute
        for (int i = 1; i <= 4; i++) {
            RateLimitResponse r = ask(answers, "alice");
            assertEquals(Code.OK, r.getOverallCode(), strategy + " call " + i + ": " + r);
            assertEquals(4 - i, r.getStatuses(0).getLimitRemaining(), strategy + " call " + i + ": " + r);
            assertEquals(4, r.getStatuses(0).getCurrentLimit().getRequestsPerUnit());
        }
        RateLimitResponse refused = ask(answers, "alice");
        assertEquals(Code.OVER_LIMIT, refused.getOverallCode(), strategy + ": " + refused);
        assertEquals(Code.OK, ask(answers, "bob").getOverallCode(), strategy + ": another key has its own window");
        com.google.protobuf.Duration reset = refused.getStatuses(0).getDurationUntilReset();
        long untilReset = reset.getSeconds();
        long resetMicros = reset.getSeconds() * 1_000_000 + reset.getNanos() / 1000;
        // 30 s on, 50 s into the minute
        clock.advanceMicros(30_000_000);
        Code after30 = ask(answers, "alice").getOverallCode();
        // 45 s on, 5 s into the next minute
        clock.advanceMicros(15_000_000);
        Code after45 = ask(answers, "alice").getOverallCode();
        switch (strategy) {
            case SLIDING_LOG, SLIDING_COUNTER -> {
                // the log frees a permit just past a minute after it; the counter when the cell of 6 s that holds it has
                // left the minute
                assertTrue(untilReset >= 60 && untilReset <= 66,
                        strategy + ": the first permit frees after a minute: " + reset);
                assertEquals(Code.OVER_LIMIT, after30, strategy + ": the four are still within the last minute");
                assertEquals(Code.OVER_LIMIT, after45, strategy + ": the four are still within the last minute");
                clock.advanceMicros(resetMicros - 45_000_000 - 1); // just before the reset it said
                assertEquals(Code.OVER_LIMIT, ask(answers, "alice").getOverallCode(), strategy + ": before its reset");
                clock.advanceMicros(1);
                assertEquals(Code.OK, ask(answers, "alice").getOverallCode(), strategy + ": at the reset it said, " + reset);
            }
            case FIXED_WINDOW -> {
                assertEquals(40, untilReset, strategy + ": the aligned minute ends in 40 s");
                assertEquals(Code.OVER_LIMIT, after30, strategy + ": the same aligned minute");
                assertEquals(Code.OK, after45, strategy + ": the next aligned minute");
            }
            case TOKEN_BUCKET -> {
                assertEquals(15, untilReset, strategy + ": one token every 15 s");
                assertEquals(Code.OK, after30, strategy + ": two tokens after 30 s");
                assertEquals(Code.OK, after45, strategy + ": one more 15 s later");
            }
        }
    }

    private static final String TIERS = """
            domain: edge
            descriptors:
              - key: plan
                value: pro
                descriptors:
                  - key: api_key
                    rate_limit: {unit: minute, requests_per_unit: 3}
              - key: plan
                descriptors:
                  - key: api_key
                    rate_limit: {unit: minute, requests_per_unit: 1}
            """;

    // envoy.md's tiers: a rule per plan holds the key's rule; the same key on two plans has two windows
    @org.junit.jupiter.api.Test
    void tiersAreRulesPerPlanEachWithItsOwnWindows() {
        MemoryStore store = new MemoryStore(clock, 1000);
        RlsAnswers answers = answers(TIERS, Strategy.SLIDING_LOG, store, store);
        java.util.function.BiFunction<String, String, RateLimitResponse> ask = (plan, key) -> answers.answer(RateLimitRequest
                .newBuilder().setDomain("edge").addDescriptors(Descriptor.newBuilder()
                        .addEntries(Descriptor.Entry.newBuilder().setKey("plan").setValue(plan))
                        .addEntries(Descriptor.Entry.newBuilder().setKey("api_key").setValue(key)))
                .build()).toCompletableFuture().join();
        for (int i = 0; i < 3; i++) {
            assertEquals(Code.OK, ask.apply("pro", "k").getOverallCode(), "pro call " + (i + 1));
        }
        RateLimitResponse over = ask.apply("pro", "k");
        assertEquals(Code.OVER_LIMIT, over.getOverallCode());
        assertEquals(3, over.getStatuses(0).getCurrentLimit().getRequestsPerUnit());
        RateLimitResponse free = ask.apply("free", "k");
        assertEquals(Code.OK, free.getOverallCode(), "the same key on another plan: its own window");
        assertEquals(1, free.getStatuses(0).getCurrentLimit().getRequestsPerUnit());
        assertEquals(Code.OVER_LIMIT, ask.apply("free", "k").getOverallCode(), "1 a minute on any other plan");
        assertEquals(Code.OK, ask.apply("basic", "k").getOverallCode(), "each value of the plan has its own window");
    }

    private static final String PLANS = """
            domain: edge
            descriptors:
              - key: api_key
                rate_limit:
                  unit: minute
                  requests_per_unit: 2
                  plans:
                    pro: {unit: minute, requests_per_unit: 5}
            """;

    // the service's plan table reaches the rules (slidegate.rls.plan-entry): the plan resolver reads the descriptor's
    // api_key entry as the plans' header, and a caller of plan pro counts against its plan's rate in a window of its
    // own; a key no plan lists, and a plan the rule does not list, count against the rule's own; a resolver that fails
    // gives no plan. What a client controls is the key it sends: a made-up key has no plan
    @org.junit.jupiter.api.Test
    void aRulesPlansFollowTheServicesPlanTableByTheEntryThatCarriesTheApiKey() {
        MemoryStore store = new MemoryStore(clock, 1000);
        Map<String, String> planOf = Map.of("k-pro", "pro", "k-gold", "gold");
        java.util.concurrent.atomic.AtomicInteger asked = new java.util.concurrent.atomic.AtomicInteger();
        dev.slidegate.api.PlanResolver resolver = call -> {
            asked.incrementAndGet();
            String key = call.request().header("X-Api-Key");
            if ("boom".equals(key)) {
                throw new IllegalStateException("the plan table is down");
            }
            return key == null ? null : planOf.get(key);
        };
        RlsAnswers answers = new RlsAnswers(
                new RlsPolicies(true, RlsRuleFiles.parse(Map.of("rules.yaml", PLANS)), Strategy.SLIDING_LOG, FailMode.LOCAL),
                Deciders.on(store, clock), store, RlsAnswers.Headers.parse("ietf"), resolver, "api_key", "X-Api-Key");
        for (int i = 1; i <= 5; i++) {
            RateLimitResponse r = ask(answers, "k-pro");
            assertEquals(Code.OK, r.getOverallCode(), "pro call " + i + ": " + r);
            assertEquals(5, r.getStatuses(0).getCurrentLimit().getRequestsPerUnit(), "the plan's rate is said: " + r);
            assertEquals(5 - i, r.getStatuses(0).getLimitRemaining());
        }
        assertEquals(Code.OVER_LIMIT, ask(answers, "k-pro").getOverallCode(), "5 a minute for pro, no more");
        for (String key : new String[] { "made-up", "k-gold", "boom" }) {
            for (int i = 1; i <= 2; i++) {
                RateLimitResponse r = ask(answers, key);
                assertEquals(Code.OK, r.getOverallCode(), key + " call " + i + ": " + r);
                assertEquals(2, r.getStatuses(0).getCurrentLimit().getRequestsPerUnit(), key + ": the rule's own rate");
            }
            assertEquals(Code.OVER_LIMIT, ask(answers, key).getOverallCode(), key + ": 2 a minute, the rule's own");
        }
        assertTrue(asked.get() >= 15, "the resolver is asked for each descriptor of a rule with plans: " + asked);

        // a rule without plans never asks the resolver
        asked.set(0);
        RlsAnswers plain = new RlsAnswers(
                new RlsPolicies(true, RlsRuleFiles.parse(Map.of("rules.yaml", RULES)), Strategy.SLIDING_LOG, FailMode.LOCAL),
                Deciders.on(store, clock), store, RlsAnswers.Headers.parse("ietf"), resolver, "api_key", "X-Api-Key");
        assertEquals(Code.OK, ask(plain, "k-pro").getOverallCode());
        assertEquals(0, asked.get());
    }

    // a descriptor's own limit (Envoy's route configuration can set one) is not honoured: the configured rule decides,
    // and the service says so once, not once per request
    @org.junit.jupiter.api.Test
    void aDescriptorsOwnLimitIsSaidOnceAndTheRuleDecides() {
        RlsAnswers answers = answers(Strategy.SLIDING_LOG);
        java.util.List<String> lines;
        try (dev.slidegate.testing.LogCapture log = dev.slidegate.testing.LogCapture.of("dev.slidegate")) {
            for (int i = 1; i <= 5; i++) {
                RateLimitResponse r = answers.answer(RateLimitRequest.newBuilder().setDomain("edge").addDescriptors(
                        Descriptor.newBuilder().addEntries(Descriptor.Entry.newBuilder().setKey("api_key").setValue("o"))
                                .setLimit(Descriptor.Override.newBuilder().setRequestsPerUnit(1000)
                                        .setUnit(dev.slidegate.rls.proto.Unit.SECOND)))
                        .build()).toCompletableFuture().join();
                assertEquals(i <= 4 ? Code.OK : Code.OVER_LIMIT, r.getOverallCode(), "call " + i + ": the rule's 4 a minute");
                assertEquals(4, r.getStatuses(0).getCurrentLimit().getRequestsPerUnit());
            }
            lines = log.lines();
        }
        assertEquals(1, lines.stream().filter(l -> l.contains("carries a descriptor's own limit (1000 per second)")).count(),
                lines.toString());
    }

    // a refused descriptor is told by its refusal: a flood of refusals costs the store one call each, not two (a look
    // after each), and the admin's reads (the same bounded inspection) never queue behind it
    @org.junit.jupiter.api.Test
    void aRefusalIsToldByItsDecisionAndOnlyTheOthersAreLookedAt() {
        MemoryStore store = new MemoryStore(clock, 1000);
        java.util.concurrent.atomic.AtomicInteger looks = new java.util.concurrent.atomic.AtomicInteger();
        dev.slidegate.core.StoreInspection counted = new dev.slidegate.core.ForwardingInspection(store) {
            @Override
            public java.util.concurrent.CompletionStage<dev.slidegate.api.Decision> peek(dev.slidegate.api.Policy policy,
                    String key) {
                looks.incrementAndGet();
                return super.peek(policy, key);
            }
        };
        RlsAnswers answers = answers(TIERS, Strategy.SLIDING_LOG, store, counted);
        java.util.function.Function<String[], RateLimitResponse> ask = keys -> {
            RateLimitRequest.Builder r = RateLimitRequest.newBuilder().setDomain("edge");
            for (String key : keys) {
                r.addDescriptors(Descriptor.newBuilder()
                        .addEntries(Descriptor.Entry.newBuilder().setKey("plan").setValue(key.split("/")[0]))
                        .addEntries(Descriptor.Entry.newBuilder().setKey("api_key").setValue(key.split("/")[1])));
            }
            return answers.answer(r.build()).toCompletableFuture().join();
        };
        assertEquals(Code.OK, ask.apply(new String[] { "free/k" }).getOverallCode());
        RateLimitResponse refused = ask.apply(new String[] { "free/k" });
        assertEquals(Code.OVER_LIMIT, refused.getOverallCode());
        assertEquals(Code.OVER_LIMIT, refused.getStatuses(0).getCode());
        assertEquals(0, refused.getStatuses(0).getLimitRemaining());
        assertTrue(refused.getStatuses(0).getDurationUntilReset().getSeconds() >= 59, refused.toString());
        assertEquals(0, looks.get(), "the refusal told its descriptor");
        // two rules, the second refusing: the first, charged nothing, is looked at
        RateLimitResponse two = ask.apply(new String[] { "pro/k", "free/k" });
        assertEquals(Code.OVER_LIMIT, two.getOverallCode());
        assertEquals(Code.OK, two.getStatuses(0).getCode());
        assertEquals(3, two.getStatuses(0).getLimitRemaining(), "charged nothing: " + two);
        assertEquals(Code.OVER_LIMIT, two.getStatuses(1).getCode());
        assertEquals(1, looks.get(), "one look, at the descriptor that did not refuse");
    }
}
