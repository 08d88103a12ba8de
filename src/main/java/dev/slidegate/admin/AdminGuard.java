package dev.slidegate.admin;

import java.util.function.Consumer;

import dev.slidegate.http.Problems;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.vertx.http.runtime.security.QuarkusHttpUser;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.RoutingContext;

/**
 * Who may use the admin: the caller's identity is checked again here (so that without a security extension the
 * admin answers 401 instead of being open), and the service's CORS settings are kept away from the root.
 */
final class AdminGuard {

    private final String role;
    private final AdminAnswers answers;

    AdminGuard(String role, AdminAnswers answers) {
        this.role = role;
        this.answers = answers;
    }

    /** Runs {@code then} with the caller's name when the caller has the role, else answers 401 or 403. */
    void authenticate(RoutingContext rc, Consumer<String> then) {
        Uni<SecurityIdentity> who = QuarkusHttpUser.getSecurityIdentity(rc, null);
        who.subscribe().with(identity -> {
            if (identity == null || identity.isAnonymous()) {
                answers.send(rc, Problems.of(401, "Unauthorized", "unauthorized",
                        "The admin needs a caller with the role " + role + " (authenticated by a Quarkus security extension)"));
            } else if (!identity.hasRole(role)) {
                answers.send(rc, Problems.of(403, "Forbidden", "forbidden", "The admin needs the role " + role));
            } else {
                then.accept(identity.getPrincipal().getName());
            }
        }, failure -> answers.send(rc, Problems.of(401, "Unauthorized", "unauthorized",
                "The caller could not be authenticated")));
    }

    /**
     * A cross-origin preflight of the admin API is refused, and no response of it carries an
     * {@code Access-Control-Allow-*} field: a browser then neither sends a cross-origin {@code PUT} or {@code DELETE}
     * nor lets a page of another origin read an answer. Same-origin requests (the live page) need neither.
     */
    void outOfCors(RoutingContext rc) {
        if (rc.request().getHeader("Origin") == null) {
            rc.next();
            return;
        }
        if (rc.request().method() == HttpMethod.OPTIONS && rc.request().getHeader("Access-Control-Request-Method") != null) {
            answers.send(rc, Problems.of(403, "Forbidden", "forbidden",
                    "The admin API answers no cross-origin requests (slidegate.admin.cors=false)"));
            return;
        }
        rc.addHeadersEndHandler(v -> {
            io.vertx.core.MultiMap headers = rc.response().headers();
            headers.names().stream().filter(n -> n.regionMatches(true, 0, "Access-Control-Allow-", 0, 21)).toList()
                    .forEach(headers::remove);
        });
        rc.next();
    }
}
