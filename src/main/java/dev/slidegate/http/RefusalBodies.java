package dev.slidegate.http;

import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Function;

import dev.slidegate.api.Policy;
import dev.slidegate.api.RateLimitExceededException;

/**
 * The latest refusal's problem and JSON body of each policy, reused while a flood's refusals are alike: the same policy
 * (the very object), the same limit, the same Retry-After second, the same kind of refusal and cost. A flood refused many
 * times a second then builds no sentence, writes no body and, in the REST layer (a filter or the exception mapper), builds
 * no response per request (in a native service about 2 KB a refusal less). A refusal unlike the latest one of its slot is
 * built as before and becomes the latest; nothing is ever answered that the refusal would not have built itself.
 */
final class RefusalBodies {

    /**
     * A refusal as answered: what decides its body, then the body; and, once the REST layer answered it, the response it
     * answered with (RESTEasy only reads a filter's response: it copies it into a builder of its own before writing).
     */
    static final class Body {
        private final Policy policy;
        private final int limit;
        private final long retryAfter;
        private final int kind;
        private final int cost;
        private final Problem problem;
        private final byte[] json;
        private volatile jakarta.ws.rs.core.Response response;

        Body(Policy policy, int limit, long retryAfter, int kind, int cost, Problem problem, byte[] json) {
            this.policy = policy;
            this.limit = limit;
            this.retryAfter = retryAfter;
            this.kind = kind;
            this.cost = cost;
            this.problem = problem;
            this.json = json;
        }

        Problem problem() {
            return problem;
        }

        byte[] json() {
            return json;
        }

        /** The response answering this refusal in the REST layer, built by {@code build} the first time. */
        jakarta.ws.rs.core.Response response(
                java.util.function.BiFunction<Problem, byte[], jakarta.ws.rs.core.Response> build) {
            jakarta.ws.rs.core.Response r = response;
            if (r == null) {
                r = build.apply(problem, json);
                response = r;
            }
            return r;
        }

        boolean answers(RateLimitExceededException e) {
            return e.decision().policy() == policy && e.decision().trippedIndex() == limit
                    && e.decision().retryAfterSeconds() == retryAfter && RefusalBodies.kind(e) == kind && e.cost() == cost;
        }
    }

    /** Slots by the policy's identity; two policies that share one take turns (each refusal still answered right). */
    private static final int SLOTS = 64;

    private final AtomicReferenceArray<Body> latest = new AtomicReferenceArray<>(SLOTS);

    /** The body answering {@code e}: the latest of its policy when alike, else built ({@code json} writes it) and kept. */
    Body of(RateLimitExceededException e, Function<Problem, byte[]> json) {
        int slot = System.identityHashCode(e.decision().policy()) & (SLOTS - 1);
        Body b = latest.get(slot);
        if (b != null && b.answers(e)) {
            return b;
        }
        Problem problem = Problems.rateLimited(e);
        b = new Body(e.decision().policy(), e.decision().trippedIndex(), e.decision().retryAfterSeconds(), kind(e), e.cost(),
                problem, json.apply(problem));
        latest.set(slot, b);
        return b;
    }

    /** What kind of refusal {@code e} is, as {@link Problems#rateLimited} words it. */
    private static int kind(RateLimitExceededException e) {
        return (e.neverAdmissible() ? 1 : 0) | (e.heldByUpstream() ? 2 : 0) | (e.waitingRoomFull() ? 4 : 0);
    }
}
