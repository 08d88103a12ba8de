package dev.slidegate.entry;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;

import dev.slidegate.config.PolicyMembers;
import dev.slidegate.config.PolicyRegistry;
import dev.slidegate.config.SlidegateConfig;
import dev.slidegate.engine.Decider;
import dev.slidegate.engine.MethodPolicy;
import dev.slidegate.http.ProblemMappers;
import io.quarkus.vertx.http.runtime.RouteConstants;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * Applies policies attached by configuration alone ({@code slidegate.policies.<name>.paths} and
 * {@code .methods}): a Vert.x route handler ahead of the REST layer, so it covers any endpoint without
 * touching its code. The {@link Decider} decides, as for the interceptor (keys, plans, cost, dry-run,
 * headers); a refusal is answered here with its problem body. The policies that match a request are decided together
 * (in order of policy name; one atomic step for those that count per window); the decision never blocks the event loop.
 *
 * <p>
 * A pattern is matched against the path as the router routes it, not as the caller spelled it
 * ({@link #routedForms}): matrix parameters, empty segments and a trailing slash are left out, dot
 * segments and encoded unreserved characters are resolved (Vert.x' normalised path), and, since the
 * REST layer decodes the segments of a path with matrix parameters, the decoded form is matched too.
 * A {@code HEAD} request counts as {@code GET}: the REST layer answers it with the {@code GET} endpoint.
 * No spelling that reaches an endpoint escapes the policy its path has (docs/security.md).
 */
@Singleton
public class PathLimiter {

    /** One attached policy and one of its path patterns. */
    private record Rule(Pattern path, List<String> methods, MethodPolicy mp) {

        boolean matches(List<String> forms, String method) {
            if (!methods.isEmpty() && !methods.contains(method) && !("HEAD".equals(method) && methods.contains("GET"))) {
                return false;
            }
            for (int i = 0; i < forms.size(); i++) {
                if (path.matcher(forms.get(i)).matches()) {
                    return true;
                }
            }
            return false;
        }
    }

    private final List<Rule> rules = new ArrayList<>();
    private final Decider decider;
    private final Exchanges exchanges;
    private final ProblemMappers problems;
    private final boolean enabled;

    PathLimiter(SlidegateConfig config, PolicyRegistry registry, MethodPolicies policies, Decider decider,
            ProblemMappers problems, Exchanges exchanges) {
        this.exchanges = exchanges;
        this.decider = decider;
        this.problems = problems;
        this.enabled = config.enabled();
        for (PolicyMembers.Attachment a : registry.attachments()) {
            for (String pattern : a.paths()) {
                for (MethodPolicy mp : policies.withTokenParts(policies.attached(a.policy(), pattern))) {
                    rules.add(new Rule(glob(pattern), a.methods(), mp));
                }
            }
        }
        // calls in flight are asked first: a later policy's refusal ends their leases (as on methods)
        rules.sort(java.util.Comparator.comparing(r -> !r.mp().policy().inFlight()));
    }

    /**
     * {@code *} matches one path segment, {@code **} any rest; everything else literally. A trailing slash
     * is left out, as it is from the paths matched, and {@code /x/**} matches {@code /x} too.
     */
    static Pattern glob(String pattern) {
        if (pattern.length() > 1 && pattern.endsWith("/")) {
            pattern = pattern.substring(0, pattern.length() - 1);
        }
        StringBuilder regex = new StringBuilder();
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            if (c == '/' && pattern.startsWith("/**", i) && i + 3 == pattern.length()) {
                regex.append("(?:/.*)?");
                break;
            }
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

    /**
     * The forms of a normalised path that patterns are matched against: the path as routed (matrix
     * parameters, empty segments and a trailing slash left out), and when it holds a percent sign also
     * with each segment decoded, as the REST layer routes a path that has matrix parameters (where
     * {@code /a%2Fb;x} reaches {@code /a/b}). A plain path is its only form, with no work.
     */
    static List<String> routedForms(String normalized) {
        boolean plain = normalized.length() <= 1 || normalized.charAt(normalized.length() - 1) != '/';
        for (int i = 0; plain && i < normalized.length(); i++) {
            char c = normalized.charAt(i);
            plain = c != ';' && c != '%' && !(c == '/' && i + 1 < normalized.length() && normalized.charAt(i + 1) == '/');
        }
        if (plain) {
            return List.of(normalized);
        }
        StringBuilder raw = new StringBuilder(normalized.length());
        StringBuilder decoded = normalized.indexOf('%') >= 0 ? new StringBuilder(normalized.length()) : null;
        for (String segment : normalized.split("/")) {
            int matrix = segment.indexOf(';');
            String bare = matrix >= 0 ? segment.substring(0, matrix) : segment;
            if (bare.isEmpty()) {
                continue;
            }
            raw.append('/').append(bare);
            if (decoded != null) {
                decoded.append('/').append(decode(bare));
            }
        }
        String routed = raw.length() == 0 ? "/" : raw.toString();
        if (decoded == null) {
            return List.of(routed);
        }
        String both = decoded.length() == 0 ? "/" : decoded.toString();
        return both.equals(routed) ? List.of(routed) : List.of(routed, both);
    }

    /** A segment percent-decoded; a malformed escape is kept as it is (the router matches it literally). */
    private static String decode(String segment) {
        try {
            return java.net.URLDecoder.decode(segment.replace("+", "%2B"), java.nio.charset.StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return segment;
        }
    }

    private void handle(RoutingContext rc) {
        List<String> path = routedForms(rc.normalizedPath());
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
            decider.decideAhead(matched, MethodPolicies.NO_ARGUMENTS, exchanges.of(rc)).thenAccept(v -> {
                HttpOutcomes.record(v, rc);
                if (v.admitted()) {
                    HttpOutcomes.endWithResponse(v, rc);
                    LateStarts.admitted(rc, v); // a REST endpoint's thread checks it was taken up in time
                    rc.next();
                } else {
                    HttpOutcomes.send(problems, rc.response(), v);
                }
            });
        }
    }
}
