package dev.slidegate.interceptor;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;

import dev.slidegate.config.PolicyRegistry;
import dev.slidegate.config.SlidegateConfig;
import dev.slidegate.http.ProblemMappers;
import io.quarkus.vertx.http.runtime.RouteConstants;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * Applies policies attached by configuration alone ({@code slidegate.policies.
 *
<p>
 * .paths} and
 * {@code .methods}): a Vert.x route handler ahead of the REST layer, so it covers any endpoint
 * without touching its code. The {@link Decider} decides, as for the interceptor (keys, plans, cost,
 * dry-run, headers); a refusal is answered here with its problem body. Policies are checked in
 * order of policy name; the decision never blocks the event loop.
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
    private final Decider decider;
    private final ProblemMappers problems;
    private final boolean enabled;

    PathLimiter(SlidegateConfig config, PolicyRegistry registry, MethodPolicies policies, Decider decider,
            ProblemMappers problems) {
        this.decider = decider;
        this.problems = problems;
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
            decider.decide(matched, MethodPolicies.NO_ARGUMENTS, rc).thenAccept(v -> {
                if (v.admitted()) {
                    rc.next();
                } else {
                    problems.send(rc.response(), v.problem());
                }
            });
        }
    }
}
