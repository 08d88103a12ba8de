package dev.slidegate.interceptor;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.slidegate.config.PolicyRegistry;
import dev.slidegate.config.SlidegateConfig;
import dev.slidegate.http.Problem;
import io.quarkus.vertx.http.runtime.RouteConstants;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Applies policies attached by configuration alone ({@code slidegate.policies.<p>.paths} and
 * {@code .methods}): a Vert.x route handler ahead of the REST layer, so it covers any endpoint
 * without touching its code. It decides like the interceptor (keys, plans, cost, dry-run, headers)
 * and answers a refusal itself with 429 and a problem body. Policies are checked in configuration
 * order; the decision never blocks the event loop.
 */
@Singleton
public class PathLimiter {

    /** One attached policy and one of its path patterns. */
    private record Rule(Pattern path, List<String> methods, MethodPolicy mp) {

        boolean matches(String path, String method) {
            return (methods.isEmpty() || methods.contains(method)) && this.path.matcher(path).matches();
        }
    }

    private final List<Rule> rules = new ArrayList<>();
    private final RequestDecider decider;
    private final ObjectMapper json;
    private final boolean enabled;

    PathLimiter(SlidegateConfig config, PolicyRegistry registry, MethodPolicies policies, RequestDecider decider, ObjectMapper json) {
        this.decider = decider;
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
            decider.decide(rc, matched, new RequestDecider.Outcome() {
                @Override
                public void admitted() {
                    rc.next();
                }

                @Override
                public void refused(Problem problem) {
                    respond(rc, problem);
                }
            });
        }
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
}
