package dev.slidegate.interceptor;

import dev.slidegate.core.LimiterStore;
import dev.slidegate.core.Policy;
import dev.slidegate.core.RateLimitExceededException;
import dev.slidegate.http.Problem;
import dev.slidegate.http.Problems;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.ext.web.RoutingContext;
import jakarta.inject.Singleton;
import java.util.List;
import org.jboss.logging.Logger;

/**
 * Decides an HTTP request against policies whose keys need nothing but the request, without
 * blocking: the path limiter (a route handler) and the early decisions of annotated endpoints (a
 * request filter) both use it. Policies are asked in order; the first refusal answers. Every
 * outcome is reported back on the request's Vert.x context.
 */
@Singleton
class RequestDecider {

    private static final Logger LOG = Logger.getLogger("dev.slidegate");
    private static final Object[] NO_ARGUMENTS = new Object[0];

    /** What became of one request. */
    interface Outcome {

        /** Every policy admitted it (or only would have refused it, in dry-run). */
        void admitted();

        /** It gets this problem as its answer: 429, 400 (no key) or 503 (no decision). */
        void refused(Problem problem);
    }

    private final CallerKeys keys;
    private final LimiterStore store;
    private final PlanResolver plans;
    private final Admission admission;

    RequestDecider(CallerKeys keys, LimiterStore store, PlanResolver plans, Admission admission) {
        this.keys = keys;
        this.store = store;
        this.plans = plans;
        this.admission = admission;
    }

    void decide(RoutingContext rc, List<MethodPolicy> policies, Outcome outcome) {
        decide(rc, policies, 0, Vertx.currentContext(), outcome);
    }

    private void decide(RoutingContext rc, List<MethodPolicy> policies, int i, Context context, Outcome outcome) {
        if (i == policies.size()) {
            outcome.admitted();
            return;
        }
        MethodPolicy mp = policies.get(i);
        String key;
        try {
            key = keys.resolve(mp, NO_ARGUMENTS, rc);
        } catch (MissingRateLimitKeyException e) {
            outcome.refused(Problems.missingKey(e.policy(), e.getMessage()));
            return;
        }
        Policy policy = mp.policyFor(plans, NO_ARGUMENTS, rc);
        store.acquire(policy, key, mp.cost()).whenComplete((d, error) -> onContext(context, () -> {
            if (error != null) {
                LOG.debugf("Rate-limit store unavailable: %s", error.getMessage()); // the breaker logs outages once
                outcome.refused(Problems.storeUnavailable());
            } else if (admission.refuse(d, rc)) {
                outcome.refused(Problems.rateLimited(new RateLimitExceededException(d, mp.cost())));
            } else {
                decide(rc, policies, i + 1, context, outcome);
            }
        }));
    }

    private static void onContext(Context context, Runnable action) {
        if (context == null || Vertx.currentContext() == context) {
            action.run();
        } else {
            context.runOnContext(v -> action.run());
        }
    }
}
