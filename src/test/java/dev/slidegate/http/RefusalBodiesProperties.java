package dev.slidegate.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Limit;
import dev.slidegate.api.Policy;
import dev.slidegate.api.RateLimitExceededException;
import dev.slidegate.api.Strategy;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * A refusal's body reused from the latest alike refusal of its policy is byte for byte the body the refusal builds
 * itself, whatever came before it: other policies (more than the cache's slots, so that they share slots), other limits,
 * other Retry-After seconds, other kinds of refusal and costs, policies of the same name and limits but another object.
 */
class RefusalBodiesProperties {

    private static final ProblemMappers PROBLEMS = new ProblemMappers();
    /** 100 policies (the cache has 64 slots), each twice: two objects of the same name and limits. */
    private static final List<Policy> POLICIES = new ArrayList<>();
    static {
        for (int i = 0; i < 100; i++) {
            for (int copy = 0; copy < 2; copy++) {
                POLICIES.add(new Policy("p" + i, List.of(Limit.parse("3/1m"), Limit.parse((5 + i % 3) + "/1h")),
                        Strategy.SLIDING_LOG, i % 2 == 0 ? "ip" : "global", false, false));
            }
        }
    }

    /** A refusal: a policy, the limit that refused (or none), the wait, the cost and the kind. */
    @Provide
    Arbitrary<RateLimitExceededException> refusals() {
        return Combinators
                .combine(Arbitraries.integers().between(0, POLICIES.size() - 1), Arbitraries.integers().between(-1, 1),
                        Arbitraries.longs().between(1, 3_000_000), Arbitraries.integers().between(1, 8), Arbitraries.integers()
                                .between(0, 2))
                .as((p, limit, retryMicros, cost, kind) -> new RateLimitExceededException(
                        new Decision(POLICIES.get(p), false, limit, retryMicros, 0, List.of()), cost, kind == 1, kind == 2));
    }

    @Property(tries = 300)
    void aReusedBodyIsTheBodyTheRefusalBuilds(@ForAll("sequences") List<RateLimitExceededException> refusals) {
        RefusalBodies bodies = new RefusalBodies();
        for (RateLimitExceededException e : refusals) {
            Problem built = Problems.rateLimited(e);
            RefusalBodies.Body answered = bodies.of(e, PROBLEMS::json);
            assertEquals(built, answered.problem());
            assertArrayEquals(PROBLEMS.json(built), answered.json(), () -> new String(answered.json(),
                    StandardCharsets.UTF_8) + " instead of " + new String(PROBLEMS.json(built), StandardCharsets.UTF_8));
        }
    }

    /** Runs of alike refusals among others: most refusals meet the latest of their policy, alike or not. */
    @Provide
    Arbitrary<List<RateLimitExceededException>> sequences() {
        return refusals().flatMap(e -> Arbitraries.integers().between(1, 4).map(n -> java.util.Collections.nCopies(n, e)))
                .list().ofMaxSize(60).map(runs -> runs.stream().flatMap(List::stream).toList());
    }

    @Example
    void refusalsAlikeShareOneBodyAndTheNextSecondGetsItsOwn() {
        RefusalBodies bodies = new RefusalBodies();
        Policy p = POLICIES.get(0);
        RefusalBodies.Body first = bodies.of(refused(p, 0, 59_500_000), PROBLEMS::json);
        assertSame(first, bodies.of(refused(p, 0, 59_100_000), PROBLEMS::json), "the same limit, the same second");
        RefusalBodies.Body later = bodies.of(refused(p, 0, 58_900_000), PROBLEMS::json);
        assertNotSame(first, later);
        assertEquals(59L, later.problem().retryAfter());
        assertEquals(60L, first.problem().retryAfter());
        RefusalBodies.Body twin = bodies.of(refused(POLICIES.get(1), 0, 58_900_000), PROBLEMS::json);
        assertNotSame(later, twin, "another policy object of the same name builds its own");
        // the REST layer's response is built once per body, with its status, Retry-After and bytes
        int[] built = new int[1];
        java.util.function.BiFunction<Problem, byte[], jakarta.ws.rs.core.Response> build = (problem, json) -> {
            built[0]++;
            return jakarta.ws.rs.core.Response.status(problem.status()).entity(json)
                    .header("Retry-After", problem.retryAfter()).build();
        };
        jakarta.ws.rs.core.Response answered = first.response(build);
        assertSame(answered, first.response(build));
        assertEquals(1, built[0]);
        assertEquals(429, answered.getStatus());
        assertSame(first.json(), answered.getEntity());
        assertNotSame(answered, later.response(build), "the next second's body answers with its own response");
    }

    private static RateLimitExceededException refused(Policy p, int limit, long retryMicros) {
        return new RateLimitExceededException(new Decision(p, false, limit, retryMicros, 0, List.of()));
    }
}
