package dev.slidegate.admin;

import java.util.List;
import java.util.Set;

import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import dev.slidegate.api.Policy;
import dev.slidegate.config.SlidegateConfig;
import dev.slidegate.core.DecisionStore;
import dev.slidegate.http.ProblemMappers;
import dev.slidegate.http.Problems;
import io.quarkus.vertx.http.security.HttpSecurity;
import io.smallrye.mutiny.Uni;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * The operators' view: the admin API, the live page and its event stream, all under one root the service chooses
 * ({@code slidegate.admin.root-path}, default {@code /q/slidegate}; the demo uses {@code /admin}). Served by routes of
 * the service's HTTP router, not as REST resources, so that the root is a setting, nothing of the service's REST
 * application (its root path, providers, OpenAPI document) changes, and with the admin off ({@code
 * slidegate.admin.enabled=false}, the default) no route exists at all.
 * <p>
 * Everything under the root needs the role {@code slidegate.admin.role} (default {@code slidegate-admin}): a permission
 * for that root only, given to Quarkus' HTTP security through its programmatic API, and checked again here, so that
 * without a security extension the admin answers 401 instead of being open. A path that reaches the root only once
 * decoded and normalized ({@code /admin%2fadmin.js}, {@code /api/..%2Fadmin/admin.js}) answers 404. With
 * {@code slidegate.admin.cors=false} (the default) the service's CORS settings do not reach the root.
 */
@Singleton
@io.quarkus.arc.properties.IfBuildProperty(name = AdminBuild.ENABLED, stringValue = "true")
class AdminRoutes {

    private static final Logger LOG = Logger.getLogger("dev.slidegate");
    /** Before Quarkus' REST routes, after its security. */
    static final int ORDER = 1000;
    private static final Set<String> READ_WRITE = Set.of("GET", "PUT", "DELETE");

    private final SlidegateConfig config;
    private final AdminService admin;
    private final OverrideAdmin overrides;
    private final AdminAnswers answers;
    private final AdminPage page;
    private final AdminGuard guard;
    private final String root;
    /** The root as the browser sees it: under the service's {@code quarkus.http.root-path}, if it set one. */
    private final String pageRoot;
    private final String role;

    AdminRoutes(SlidegateConfig config, AdminService admin, OverrideAdmin overrides, ProblemMappers problems) {
        this.config = config;
        this.admin = admin;
        this.overrides = overrides;
        this.answers = new AdminAnswers(problems);
        this.guard = new AdminGuard(config.admin().role().trim(), answers);
        this.page = new AdminPage(admin, answers);
        this.root = config.admin().rootPath();
        String httpRoot = org.eclipse.microprofile.config.ConfigProvider.getConfig()
                .getOptionalValue("quarkus.http.root-path", String.class).orElse("/").trim();
        httpRoot = httpRoot.endsWith("/") ? httpRoot.substring(0, httpRoot.length() - 1) : httpRoot;
        this.pageRoot = (httpRoot.startsWith("/") || httpRoot.isEmpty() ? httpRoot : "/" + httpRoot) + root;
        this.role = config.admin().role().trim();
    }

    /** The permission that guards the root, and nothing else of the service. */
    void secure(@Observes HttpSecurity security) {
        if (config.admin().enabled()) {
            security.path(root, root + "/*").roles(role);
        }
    }

    void register(@Observes Router router, io.vertx.core.Vertx vertx) {
        if (!config.admin().enabled()) {
            return;
        }
        admin.sample(); // the trends start counting now, and move every bucket (a timer only while the admin is on)
        vertx.setPeriodic(Trends.BUCKET_MS, id -> admin.sample());
        router.route().order(Integer.MIN_VALUE + 5).handler(rc -> {
            if (AdminPaths.disguised(rc.request().path(), pageRoot)) {
                rc.response().setStatusCode(404).end();
            } else {
                rc.next();
            }
        });
        if (!config.admin().cors()) {
            // ahead of Quarkus' CORS filter (order -300): the admin root is kept out of the service's CORS settings
            router.route(root).order(Integer.MIN_VALUE + 10).handler(guard::outOfCors);
            router.route(root + "/*").order(Integer.MIN_VALUE + 10).handler(guard::outOfCors);
        }
        router.route(root).order(ORDER).handler(this::handle);
        router.route(root + "/*").order(ORDER).handler(this::handle);
        LOG.infof("Slidegate admin at %s (role %s)", root, role);
    }

    private void handle(RoutingContext rc) {
        guard.authenticate(rc, who -> route(rc, who));
    }

    private void route(RoutingContext rc, String who) {
        List<String> s;
        try {
            // the path below the root, after the service's quarkus.http.root-path when its router is mounted there
            String path = rc.normalizedPath();
            String mount = rc.mountPoint();
            int from = mount == null ? 0 : mount.endsWith("/") ? mount.length() - 1 : mount.length();
            if (!path.startsWith(root, from)) {
                answers.notFound(rc);
                return;
            }
            s = AdminPaths.segments(path.substring(from + root.length()));
        } catch (IllegalArgumentException e) {
            answers.send(rc, Problems.of(400, "Bad Request", "bad-request", "The path is not valid: " + e.getMessage()));
            return;
        }
        String method = rc.request().method().name();
        int n = s.size();
        try {
            if (n == 0) {
                only(rc, method, "GET", () -> summary(rc));
            } else if (n == 1 && s.get(0).equals("stream")) {
                only(rc, method, "GET", () -> page.stream(rc));
            } else if (n == 1 && (s.get(0).equals("admin.js") || s.get(0).equals("admin.css"))) {
                only(rc, method, "GET", () -> page.file(rc, s.get(0)));
            } else if (n == 1 && s.get(0).equals("overrides")) {
                only(rc, method, "GET", () -> list(rc));
            } else if (n >= 3 && s.get(0).equals("policies")) {
                policyRoute(rc, method, s, who);
            } else {
                answers.notFound(rc);
            }
        } catch (RuntimeException e) {
            answers.fail(rc, e);
        }
    }

    private void policyRoute(RoutingContext rc, String method, List<String> s, String who) {
        String policy = s.get(1);
        int n = s.size();
        if (n == 3 && s.get(2).equals("keys")) {
            only(rc, method, "GET", () -> keys(rc, policy));
        } else if (n == 3 && s.get(2).equals("override")) {
            override(rc, method, policy, null, null, who);
        } else if (n == 5 && s.get(2).equals("plans") && s.get(4).equals("override")) {
            override(rc, method, policy, s.get(3), null, who);
        } else if (n == 4 && s.get(2).equals("keys")) {
            String key = s.get(3);
            if (method.equals("GET")) {
                answers.reply(rc, 200, Uni.createFrom().deferred(() -> admin.key(known(policy), storeKey(key))));
            } else if (method.equals("DELETE")) {
                answers.reply(rc, 204, Uni.createFrom().deferred(() -> admin.reset(known(policy), storeKey(key))));
            } else {
                answers.notAllowed(rc, "GET, DELETE");
            }
        } else if (n == 5 && s.get(2).equals("keys") && s.get(4).equals("override")) {
            override(rc, method, policy, null, s.get(3), who);
        } else if (n >= 5 && s.get(2).equals("keys") && READ_WRITE.contains(method)) {
            // a key path with a raw '/' after the key: a key holding '/' is written %2F, so that keys/hdr:abc/override can
            // only mean the override of hdr:abc
            String rest = String.join("/", s.subList(4, n));
            answers.send(rc,
                    Problems.of(404, "Not Found", "not-found", "There is no resource '" + rest + "' of a key: a key holding "
                            + "'/' is written %2F in the path (" + s.get(3) + "%2F" + rest + ")"));
        } else {
            answers.notFound(rc);
        }
    }

    private void only(RoutingContext rc, String method, String allowed, Runnable action) {
        if (method.equals(allowed) || (allowed.equals("GET") && method.equals("HEAD"))) {
            action.run();
        } else {
            answers.notAllowed(rc, allowed);
        }
    }

    /**
     * For API clients, the summary: the store, and per policy its limits, active keys and decisions since start. For
     * browsers ({@code Accept: text/html}), the live page.
     */
    private void summary(RoutingContext rc) {
        String accept = rc.request().getHeader("Accept");
        if (accept != null && accept.contains("text/html")) {
            rc.response().putHeader("Content-Type", "text/html;charset=UTF-8").putHeader("Cache-Control", "no-cache")
                    .end(AdminPage.page(pageRoot));
            return;
        }
        answers.reply(rc, 200, admin.summary());
    }

    /**
     * The active keys of a policy, a page at a time ({@code cursor} from the previous page), or with {@code sort=usage}
     * the callers closest to their limit first.
     */
    private void keys(RoutingContext rc, String policy) {
        Policy p = known(policy);
        int limit = AdminAnswers.intParam(rc, "limit", 100);
        String cursor = AdminAnswers.param(rc, "cursor", "");
        String sort = AdminAnswers.param(rc, "sort", "");
        if (limit < 1 || limit > 1000) {
            throw AdminAnswers.badRequest("limit must be between 1 and 1000, was " + limit);
        }
        if (!sort.isEmpty() && !sort.equals("usage")) {
            throw AdminAnswers.badRequest("sort '" + sort + "' is not known: use sort=usage, or none for the store's order");
        }
        if (sort.equals("usage") && !cursor.isEmpty() && !cursor.matches("\\d{1,9}")) {
            throw AdminAnswers.badRequest("'" + cursor + "' is not a cursor of this listing");
        }
        answers.reply(rc, 200, admin.keys(p, cursor, limit, sort.equals("usage"))
                .onFailure(IllegalArgumentException.class).transform(e -> AdminAnswers.badRequest(e.getMessage())));
    }

    /** The overrides in force, a page at a time ({@code cursor} from the previous page). */
    private void list(RoutingContext rc) {
        int limit = AdminAnswers.intParam(rc, "limit", 1000);
        String cursor = AdminAnswers.param(rc, "cursor", "");
        if (limit < 1 || limit > 10_000) {
            throw AdminAnswers.badRequest("limit must be between 1 and 10000, was " + limit);
        }
        if (!cursor.isEmpty() && !cursor.matches("\\d{1,9}")) {
            throw AdminAnswers.badRequest("'" + cursor + "' is not a cursor of this listing");
        }
        answers.reply(rc, 200, Uni.createFrom().item(overrides.list(cursor.isEmpty() ? 0 : Integer.parseInt(cursor), limit)));
    }

    /**
     * The override of a policy, a plan of it or a caller key: {@code GET} it, {@code PUT} one (replacing any:
     * {@code {"limits": ["3/1m"], "expiresIn": 3600, "reason": "…"}}, {@code {"block": true}} or {@code {"exempt":
     * true}}), {@code DELETE} it.
     */
    private void override(RoutingContext rc, String method, String policy, String plan, String key, String who) {
        switch (method) {
            case "GET", "HEAD" ->
                answers.reply(rc, 200, Uni.createFrom().item(() -> overrides.get(overrides.target(policy, plan, key))));
            case "DELETE" -> answers.reply(rc, 204,
                    Uni.createFrom().deferred(() -> overrides.delete(overrides.target(policy, plan, key), who)));
            case "PUT" -> {
                String type = rc.request().getHeader("Content-Type");
                if (!AdminAnswers.json(type)) {
                    throw new OverrideAdmin.Refused(415, "The body is sent as '" + type
                            + "': an override is JSON, sent with Content-Type: application/json");
                }
                answers.body(rc, body -> answers.reply(rc, 200,
                        Uni.createFrom().deferred(() -> overrides.put(overrides.target(policy, plan, key), body, who))));
            }
            default -> answers.notAllowed(rc, "GET, PUT, DELETE");
        }
    }

    private Policy known(String name) {
        Policy p = admin.policy(name);
        if (p == null) {
            throw new OverrideAdmin.Refused(404, "There is no policy '" + name + "'; known: " + admin.policies().keySet());
        }
        return p;
    }

    /** A key as typed into the URL, checked as every store requires it (a 400 naming the rule, on every store). */
    private static String storeKey(String key) {
        try {
            return DecisionStore.checkKey(key);
        } catch (IllegalArgumentException e) {
            throw AdminAnswers.badRequest("'" + key + "': " + e.getMessage());
        }
    }

}
