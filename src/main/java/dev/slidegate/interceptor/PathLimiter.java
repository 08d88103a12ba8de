package dev.slidegate.interceptor;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.slidegate.config.PolicyRegistry;
import dev.slidegate.config.SlidegateConfig;
import dev.slidegate.core.Decision;
import dev.slidegate.core.LimiterStore;
import dev.slidegate.core.Policy;
import dev.slidegate.core.RateLimitExceededException;
import dev.slidegate.http.Problem;
import dev.slidegate.http.Problems;
import io.quarkus.vertx.http.runtime.RouteConstants;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.jboss.logging.Logger;

/**
 * Applies policies attached by configuration alone ({@code slidegate.policies.<p>.paths} and
 * {@code .methods}): a Vert.x route handler ahead of the REST layer, so it covers any endpoint
 * without touching its code. It decides like the interceptor (keys, plans, cost, dry-run, headers)
 * and answers a refusal itself with 429 and a problem body. Policies are checked in configuration
 * order; the decision never blocks the event loop.
 */
@Singleton
public class PathLimiter {

    private static final Logger LOG = Logger.getLogger("dev.slidegate");
    private static final Object[] NO_ARGUMENTS = new Object[0];

    /** One attached policy and one of its path patterns. */
    private record Rule(Pattern path, List<String> methods, MethodPolicy mp) {

        boolean matches(String path, String method) {
            return (methods.isEmpty() || methods.contains(method)) && this.path.matcher(path).matches();
        }
    }

    private final List<Rule> rules = new ArrayList<>();
    private final CallerKeys keys;
    private final LimiterStore store;
    private final PlanResolver plans;
    private final ObjectMapper json;
    private final boolean enabled;
    private final Admission admission;

    PathLimiter(SlidegateConfig config, PolicyRegistry registry, MethodPolicies policies, CallerKeys keys, LimiterStore store,
            PlanResolver plans, ObjectMapper json, Admission admission) {
        this.admission = admission;
        this.keys = keys;
        this.store = store;
        this.plans = plans;
        this.json = json;
        this.enabled = config.enabled();
        for (PolicyRegistry.Attachment a : registry.attachments()) {
            for (String pattern : a.paths()) {
                rules.add(new Rule(glob(pattern), a.methods(), policies.attached(a.policy(), pattern)));
            }
        }
    }

    /** {@code *} matches one path segment, {@code **} any rest; everything else literally. */
    static Pattern glob(String pattern) {
        StringBuilder regex = new StringBuilder();
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            if (c == '*' && i + 1 < pattern.length() && pattern.charAt(i + 1) == '*') {
                regex.append(".*");
                i++;
            } else if (c == '*') {
                regex.append("[^/]*");
            } else {
                regex.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return Pattern.compile(regex.toString());
    }

    void register(@Observes Router router) {
        if (enabled && !rules.isEmpty()) {
            router.route().order(RouteConstants.ROUTE_ORDER_BEFORE_DEFAULT + 10).handler(this::handle);
        }
    }

    private void handle(RoutingContext rc) {
        String path = rc.normalizedPath();
        String method = rc.request().method().name();
        List<MethodPolicy> matched = null;
        for (Rule r : rules) {
            if (r.matches(path, method)) {
                (matched == null ? matched = new ArrayList<>(2) : matched).add(r.mp());
            }
        }
        if (matched == null) {
            rc.next();
        } else {
            decide(rc, matched, 0, Vertx.currentContext());
        }
    }

    private void decide(RoutingContext rc, List<MethodPolicy> matched, int i, Context context) {
        if (i == matched.size()) {
            rc.next();
            return;
        }
        MethodPolicy mp = matched.get(i);
        String key;
        try {
            key = keys.resolve(mp, NO_ARGUMENTS, rc);
        } catch (MissingRateLimitKeyException e) {
            respond(rc, Problems.missingKey(e.policy(), e.getMessage()));
            return;
        }
        Policy policy = mp.policyFor(plans, NO_ARGUMENTS, rc);
        store.acquire(policy, key, mp.cost()).whenComplete((d, error) -> onContext(context, () -> {
            if (error != null) {
                LOG.debugf("Rate-limit store unavailable: %s", error.getMessage()); // the breaker logs outages once
                respond(rc, Problems.storeUnavailable());
                return;
            }
            if (admission.refuse(d, rc)) {
                respond(rc, Problems.rateLimited(new RateLimitExceededException(d, mp.cost())));
            } else {
                decide(rc, matched, i + 1, context);
            }
        }));
    }

    private void respond(RoutingContext rc, Problem problem) {
        try {
            rc.response().setStatusCode(problem.status()).putHeader("Content-Type", Problem.MEDIA_TYPE);
            if (problem.retryAfter() != null) {
                rc.response().putHeader("Retry-After", Long.toString(problem.retryAfter()));
            }
            rc.response().end(json.writeValueAsString(problem));
        } catch (JsonProcessingException e) {
            rc.fail(e);
        }
    }

    private static void onContext(Context context, Runnable action) {
        if (context == null || Vertx.currentContext() == context) {
            action.run();
        } else {
            context.runOnContext(v -> action.run());
        }
    }
}
