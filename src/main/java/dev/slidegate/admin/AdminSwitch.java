package dev.slidegate.admin;

import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;

import dev.slidegate.config.SlidegateConfig;
import io.vertx.ext.web.Router;

/**
 * {@code slidegate.admin.enabled=false}: {@code /admin} and below answer 404 for everyone, before any
 * authentication. And in any case, a path that reaches {@code /admin} only once decoded and normalized
 * ({@code /admin%2fadmin.js}, {@code /api/..%2Fadmin/admin.js}) answers 404: the permission that guards
 * {@code /admin/*} is matched on the path as sent, while static files are found by the decoded path, so
 * such a spelling would reach the page's files without credentials. With the admin on, the service's CORS
 * settings do not reach it unless {@code slidegate.admin.cors=true}.
 */
@Singleton
class AdminSwitch {

    void register(@Observes Router router, SlidegateConfig config) {
        router.route().order(Integer.MIN_VALUE + 5).handler(rc -> {
            if (disguisedAdmin(rc.request().path())) {
                rc.response().setStatusCode(404).end();
            } else {
                rc.next();
            }
        });
        if (!config.admin().enabled()) {
            router.routeWithRegex("/admin(/.*)?").order(Integer.MIN_VALUE + 10)
                    .handler(rc -> rc.response().setStatusCode(404).end());
        } else if (!config.admin().cors()) {
            // ahead of Quarkus' CORS filter (order -300): the admin root is kept out of the service's CORS settings
            router.routeWithRegex("/admin(/.*)?").order(Integer.MIN_VALUE + 10).handler(AdminSwitch::outOfCors);
        }
    }

    /**
     * A cross-origin preflight of the admin API is refused, and no response of it carries an
     * {@code Access-Control-Allow-*} field: a browser then neither sends a cross-origin {@code PUT} or
     * {@code DELETE} nor lets a page of another origin read an answer. Same-origin requests (the live page) need
     * neither.
     */
    private static void outOfCors(io.vertx.ext.web.RoutingContext rc) {
        if (rc.request().getHeader("Origin") == null) {
            rc.next();
            return;
        }
        if (rc.request().method() == io.vertx.core.http.HttpMethod.OPTIONS
                && rc.request().getHeader("Access-Control-Request-Method") != null) {
            rc.response().setStatusCode(403).putHeader("Content-Type", "application/problem+json")
                    .end("{\"type\":\"https://slidegate.dev/problems/forbidden\",\"title\":\"Forbidden\",\"status\":403,"
                            + "\"detail\":\"The admin API answers no cross-origin requests (slidegate.admin.cors=false)\"}");
            return;
        }
        rc.addHeadersEndHandler(v -> {
            io.vertx.core.MultiMap headers = rc.response().headers();
            headers.names().stream().filter(n -> n.regionMatches(true, 0, "Access-Control-Allow-", 0, 21)).toList()
                    .forEach(headers::remove);
        });
        rc.next();
    }

    /** Whether {@code raw}, a path as sent, is not spelled {@code /admin} or {@code /admin/…} but means it once decoded. */
    static boolean disguisedAdmin(String raw) {
        if (raw == null || raw.equals("/admin") || raw.startsWith("/admin/") || (raw.indexOf('%') < 0 && raw.indexOf('.') < 0
                && raw.indexOf('\\') < 0 && raw.indexOf("//") < 0)) {
            return false;
        }
        String decoded;
        try {
            decoded = java.net.URLDecoder.decode(raw.replace("+", "%2B"), java.nio.charset.StandardCharsets.UTF_8);
        } catch (IllegalArgumentException malformed) {
            return false; // not a path any handler finds a file for
        }
        java.util.Deque<String> segments = new java.util.ArrayDeque<>();
        for (String segment : decoded.replace('\\', '/').split("/")) {
            if (segment.equals("..")) {
                segments.pollLast();
            } else if (!segment.isEmpty() && !segment.equals(".")) {
                segments.addLast(segment);
            }
        }
        return "admin".equals(segments.peekFirst());
    }
}
