package dev.slidegate.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Limit;
import dev.slidegate.api.LimitState;
import dev.slidegate.api.Policy;
import dev.slidegate.api.Strategy;
import io.vertx.core.MultiMap;

/** The RateLimit fields as callers read them, whether a policy's fields were written before or not. */
class RateLimitHeadersTest {

    private static Policy policy(String name, String... limits) {
        return new Policy(name, java.util.Arrays.stream(limits).map(Limit::parse).toList(), Strategy.SLIDING_LOG, "ip",
                false);
    }

    private static Decision decision(Policy p, long... remaining) {
        List<LimitState> states = new ArrayList<>();
        for (int i = 0; i < remaining.length; i++) {
            states.add(new LimitState(p.limits().get(i), remaining[i], 1_500_000));
        }
        return new Decision(p, true, -1, 0, 0, states);
    }

    private static MultiMap write(Decision... decisions) {
        MultiMap headers = MultiMap.caseInsensitiveMultiMap();
        RateLimitHeaders.write(headers, new ArrayList<>(List.of(decisions)));
        return headers;
    }

    @Test
    void eachLimitIsOneItemAndAPolicyWrittenBeforeReadsTheSame() {
        Policy products = policy("products", "500/2s", "2000/10s");
        for (int call = 0; call < 3; call++) { // the first call writes the policy's fields, the others reuse them
            MultiMap h = write(decision(products, 499 - call, 1999 - call));
            assertEquals("\"products-2s\";q=500;w=2, \"products-10s\";q=2000;w=10", h.get("RateLimit-Policy"));
            assertEquals("\"products-2s\";r=" + (499 - call) + ";t=2, \"products-10s\";r=" + (1999 - call) + ";t=2",
                    h.get("RateLimit"));
        }
    }

    // an override is a new policy object of the same name with other limits: its own fields, never the old ones
    @Test
    void anOverriddenPolicyWritesItsOwnLimits() {
        write(decision(policy("reports", "100/1h"), 99));
        MultiMap h = write(decision(policy("reports", "5/1m"), 4));
        assertEquals("\"reports-1m\";q=5;w=60", h.get("RateLimit-Policy"));
        assertEquals("\"reports-1m\";r=4;t=2", h.get("RateLimit"));
    }

    @Test
    void severalPoliciesAreListedInOrder() {
        MultiMap h = write(decision(policy("outer", "10/1s"), 9), decision(policy("inner", "3/1m"), 2));
        assertEquals("\"outer-1s\";q=10;w=1, \"inner-1m\";q=3;w=60", h.get("RateLimit-Policy"));
        assertEquals("\"outer-1s\";r=9;t=2, \"inner-1m\";r=2;t=2", h.get("RateLimit"));
    }

    // states of other limits than the decision's policy (none of the stores makes them) are spelled out from the states
    @Test
    void statesOfOtherLimitsAreSpelledOut() {
        Policy p = policy("odd", "10/1s");
        Decision d = new Decision(p, true, -1, 0, 0, List.of(new LimitState(Limit.parse("7/1m"), 6, 0)));
        MultiMap h = write(d);
        assertEquals("\"odd-1s\";q=7;w=60", h.get("RateLimit-Policy"));
        assertEquals("\"odd-1s\";r=6;t=0", h.get("RateLimit"));
    }

    @Test
    void noStatesNoFields() {
        Policy p = policy("none", "10/1s");
        assertEquals(null, write(new Decision(p, true, -1, 0, 0, List.of())).get("RateLimit"));
    }
}
