package dev.slidegate.admin;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Set;

import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.slidegate.api.Policy;
import dev.slidegate.api.StoreUnavailableException;
import dev.slidegate.config.SlidegateConfig;
import dev.slidegate.core.DecisionStore;
import dev.slidegate.http.Problem;
import dev.slidegate.http.ProblemMappers;
import dev.slidegate.http.Problems;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.vertx.http.runtime.security.QuarkusHttpUser;
import io.quarkus.vertx.http.security.HttpSecurity;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.Cancellable;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerResponse;
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
class AdminRoutes {

    private static final Logger LOG = Logger.getLogger("dev.slidegate");
    /** The largest request body read (an override is at most {@link OverrideAdmin#MAX_BODY} characters). */
    static final int MAX_BODY_BYTES = 64 * 1024;
    /** Before Quarkus' REST routes, after its security. */
    static final int ORDER = 1000;
    private static final Set<String> READ_WRITE = Set.of("GET", "PUT", "DELETE");

    private final SlidegateConfig config;
    private final AdminService admin;
    private final OverrideAdmin overrides;
    private final ProblemMappers problems;
    /** Slidegate's own mapper: the service's naming strategy or inclusion settings never rename the documented members. */
    private final ObjectMapper json = new ObjectMapper();
    private final String root;
    /** The root as the browser sees it: under the service's {@code quarkus.http.root-path}, if it set one. */
    private final String pageRoot;
    private final String role;

    AdminRoutes(SlidegateConfig config, AdminService admin, OverrideAdmin overrides, ProblemMappers problems) {
        this.config = config;
        this.admin = admin;
        this.overrides = overrides;
        this.problems = problems;
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

    void register(@Observes Router router) {
        if (!config.admin().enabled()) {
            return;
        }
        router.route().order(Integer.MIN_VALUE + 5).handler(rc -> {
            if (disguised(rc.request().path(), pageRoot)) {
                rc.response().setStatusCode(404).end();
            } else {
                rc.next();
            }
        });
        if (!config.admin().cors()) {
            // ahead of Quarkus' CORS filter (order -300): the admin root is kept out of the service's CORS settings
            router.route(root).order(Integer.MIN_VALUE + 10).handler(this::outOfCors);
            router.route(root + "/*").order(Integer.MIN_VALUE + 10).handler(this::outOfCors);
        }
        router.route(root).order(ORDER).handler(this::handle);
        router.route(root + "/*").order(ORDER).handler(this::handle);
        LOG.infof("Slidegate admin at %s (role %s)", root, role);
    }

    /**
     * A cross-origin preflight of the admin API is refused, and no response of it carries an
     * {@code Access-Control-Allow-*} field: a browser then neither sends a cross-origin {@code PUT} or {@code DELETE}
     * nor lets a page of another origin read an answer. Same-origin requests (the live page) need neither.
     */
    private void outOfCors(RoutingContext rc) {
        if (rc.request().getHeader("Origin") == null) {
            rc.next();
            return;
        }
        if (rc.request().method() == HttpMethod.OPTIONS && rc.request().getHeader("Access-Control-Request-Method") != null) {
            send(rc, Problems.of(403, "Forbidden", "forbidden",
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

    /** Whether {@code raw}, a path as sent, is not spelled {@code root} or {@code root/…} but means it once decoded. */
    static boolean disguised(String raw, String root) {
        if (raw == null || raw.equals(root) || raw.startsWith(root + "/") || (raw.indexOf('%') < 0 && raw.indexOf('.') < 0
                && raw.indexOf('\\') < 0 && raw.indexOf("//") < 0)) {
            return false;
        }
        String decoded;
        try {
            decoded = URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException malformed) {
            return false; // not a path any handler finds a file for
        }
        Deque<String> segments = normalized(decoded.replace('\\', '/'));
        List<String> rootSegments = List.copyOf(normalized(root));
        if (segments.size() < rootSegments.size()) {
            return false;
        }
        return new ArrayList<>(segments).subList(0, rootSegments.size()).equals(rootSegments);
    }

    private static Deque<String> normalized(String path) {
        Deque<String> segments = new ArrayDeque<>();
        for (String segment : path.split("/")) {
            if (segment.equals("..")) {
                segments.pollLast();
            } else if (!segment.isEmpty() && !segment.equals(".")) {
                segments.addLast(segment);
            }
        }
        return segments;
    }

    private void handle(RoutingContext rc) {
        Uni<SecurityIdentity> who = QuarkusHttpUser.getSecurityIdentity(rc, null);
        who.subscribe().with(identity -> {
            if (identity == null || identity.isAnonymous()) {
                send(rc, Problems.of(401, "Unauthorized", "unauthorized",
                        "The admin needs a caller with the role " + role + " (authenticated by a Quarkus security extension)"));
            } else if (!identity.hasRole(role)) {
                send(rc, Problems.of(403, "Forbidden", "forbidden", "The admin needs the role " + role));
            } else {
                route(rc, identity.getPrincipal().getName());
            }
        }, failure -> send(rc, Problems.of(401, "Unauthorized", "unauthorized", "The caller could not be authenticated")));
    }

    private void route(RoutingContext rc, String who) {
        List<String> s;
        try {
            // the path below the root, after the service's quarkus.http.root-path when its router is mounted there
            String path = rc.normalizedPath();
            String mount = rc.mountPoint();
            int from = mount == null ? 0 : mount.endsWith("/") ? mount.length() - 1 : mount.length();
            if (!path.startsWith(root, from)) {
                notFound(rc);
                return;
            }
            s = segments(path.substring(from + root.length()));
        } catch (IllegalArgumentException e) {
            send(rc, Problems.of(400, "Bad Request", "bad-request", "The path is not valid: " + e.getMessage()));
            return;
        }
        String method = rc.request().method().name();
        int n = s.size();
        try {
            if (n == 0) {
                only(rc, method, "GET", () -> summary(rc));
            } else if (n == 1 && s.get(0).equals("stream")) {
                only(rc, method, "GET", () -> stream(rc));
            } else if (n == 1 && (s.get(0).equals("admin.js") || s.get(0).equals("admin.css"))) {
                only(rc, method, "GET", () -> file(rc, s.get(0)));
            } else if (n == 1 && s.get(0).equals("overrides")) {
                only(rc, method, "GET", () -> list(rc));
            } else if (n >= 3 && s.get(0).equals("policies")) {
                policyRoute(rc, method, s, who);
            } else {
                notFound(rc);
            }
        } catch (RuntimeException e) {
            fail(rc, e);
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
                reply(rc, 200, Uni.createFrom().deferred(() -> admin.key(known(policy), storeKey(key))));
            } else if (method.equals("DELETE")) {
                reply(rc, 204, Uni.createFrom().deferred(() -> admin.reset(known(policy), storeKey(key))));
            } else {
                notAllowed(rc, "GET, DELETE");
            }
        } else if (n == 5 && s.get(2).equals("keys") && s.get(4).equals("override")) {
            override(rc, method, policy, null, s.get(3), who);
        } else if (n >= 5 && s.get(2).equals("keys") && READ_WRITE.contains(method)) {
            // a key path with a raw '/' after the key: a key holding '/' is written %2F, so that keys/hdr:abc/override can
            // only mean the override of hdr:abc
            String rest = String.join("/", s.subList(4, n));
            send(rc, Problems.of(404, "Not Found", "not-found", "There is no resource '" + rest + "' of a key: a key holding "
                    + "'/' is written %2F in the path (" + s.get(3) + "%2F" + rest + ")"));
        } else {
            notFound(rc);
        }
    }

    /** The path below the root as decoded segments ({@code %2F} within a segment stays part of it). */
    static List<String> segments(String below) {
        if (below.isEmpty() || below.equals("/")) {
            return List.of();
        }
        List<String> decoded = new ArrayList<>();
        for (String raw : Arrays.asList(below.substring(1).split("/", -1))) {
            decoded.add(URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8));
        }
        return decoded;
    }

    private void only(RoutingContext rc, String method, String allowed, Runnable action) {
        if (method.equals(allowed) || (allowed.equals("GET") && method.equals("HEAD"))) {
            action.run();
        } else {
            notAllowed(rc, allowed);
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
                    .end(page(pageRoot));
            return;
        }
        reply(rc, 200, admin.summary());
    }

    /** The live page, its links under the root it is served from. */
    static String page(String root) {
        return new String(file("index.html"), StandardCharsets.UTF_8).replace("{{root}}", root);
    }

    private void file(RoutingContext rc, String name) {
        String type = name.endsWith(".js") ? "text/javascript;charset=UTF-8" : "text/css;charset=UTF-8";
        rc.response().putHeader("Content-Type", type).putHeader("Cache-Control", "no-cache")
                .end(Buffer.buffer(file(name)));
    }

    /** One file of the live page, from the class path ({@code slidegate/admin/}). */
    private static byte[] file(String name) {
        try (InputStream in = AdminRoutes.class.getClassLoader().getResourceAsStream("slidegate/admin/" + name)) {
            if (in == null) {
                throw new IllegalStateException("the admin page's " + name + " is missing from the class path");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * About once a second: every policy's counters and its busiest keys, for the live page. One snapshot serves every
     * open page; a tick whose snapshot failed (Redis away) is skipped, never the end of the stream; a tick that comes
     * while the previous snapshot is still being computed (a slow or frozen Redis) is dropped.
     */
    private void stream(RoutingContext rc) {
        HttpServerResponse response = rc.response();
        response.setChunked(true).putHeader("Content-Type", "text/event-stream").putHeader("Cache-Control", "no-cache");
        response.write(":\n\n"); // the headers now, so that the page's EventSource opens at once
        Cancellable ticks = Multi.createFrom().ticks().startingAfter(Duration.ofMillis(1)).every(Duration.ofSeconds(1))
                .onOverflow().drop()
                .onItem().transformToUniAndConcatenate(tick -> admin.sharedSnapshot(10).onFailure().recoverWithNull())
                .subscribe().with(snapshot -> {
                    if (!response.ended() && !response.closed()) {
                        response.write("data:" + text(snapshot) + "\n\n");
                    }
                }, failure -> {
                    if (!response.ended() && !response.closed()) {
                        response.end();
                    }
                });
        response.closeHandler(v -> ticks.cancel());
        rc.addEndHandler(v -> ticks.cancel());
    }

    /**
     * The active keys of a policy, a page at a time ({@code cursor} from the previous page), or with {@code sort=usage}
     * the callers closest to their limit first.
     */
    private void keys(RoutingContext rc, String policy) {
        Policy p = known(policy);
        int limit = intParam(rc, "limit", 100);
        String cursor = param(rc, "cursor", "");
        String sort = param(rc, "sort", "");
        if (limit < 1 || limit > 1000) {
            throw badRequest("limit must be between 1 and 1000, was " + limit);
        }
        if (!sort.isEmpty() && !sort.equals("usage")) {
            throw badRequest("sort '" + sort + "' is not known: use sort=usage, or none for the store's order");
        }
        if (sort.equals("usage") && !cursor.isEmpty() && !cursor.matches("\\d{1,9}")) {
            throw badRequest("'" + cursor + "' is not a cursor of this listing");
        }
        reply(rc, 200, admin.keys(p, cursor, limit, sort.equals("usage"))
                .onFailure(IllegalArgumentException.class).transform(e -> badRequest(e.getMessage())));
    }

    /** The overrides in force, a page at a time ({@code cursor} from the previous page). */
    private void list(RoutingContext rc) {
        int limit = intParam(rc, "limit", 1000);
        String cursor = param(rc, "cursor", "");
        if (limit < 1 || limit > 10_000) {
            throw badRequest("limit must be between 1 and 10000, was " + limit);
        }
        if (!cursor.isEmpty() && !cursor.matches("\\d{1,9}")) {
            throw badRequest("'" + cursor + "' is not a cursor of this listing");
        }
        reply(rc, 200, Uni.createFrom().item(overrides.list(cursor.isEmpty() ? 0 : Integer.parseInt(cursor), limit)));
    }

    /**
     * The override of a policy, a plan of it or a caller key: {@code GET} it, {@code PUT} one (replacing any:
     * {@code {"limits": ["3/1m"], "expiresIn": 3600, "reason": "…"}}, {@code {"block": true}} or {@code {"exempt":
     * true}}), {@code DELETE} it.
     */
    private void override(RoutingContext rc, String method, String policy, String plan, String key, String who) {
        switch (method) {
            case "GET", "HEAD" ->
                reply(rc, 200, Uni.createFrom().item(() -> overrides.get(overrides.target(policy, plan, key))));
            case "DELETE" -> reply(rc, 204,
                    Uni.createFrom().deferred(() -> overrides.delete(overrides.target(policy, plan, key), who)));
            case "PUT" -> {
                String type = rc.request().getHeader("Content-Type");
                if (!json(type)) {
                    throw new OverrideAdmin.Refused(415, "The body is sent as '" + type
                            + "': an override is JSON, sent with Content-Type: application/json");
                }
                body(rc, body -> reply(rc, 200,
                        Uni.createFrom().deferred(() -> overrides.put(overrides.target(policy, plan, key), body, who))));
            }
            default -> notAllowed(rc, "GET, PUT, DELETE");
        }
    }

    /** Reads the request body, at most {@link #MAX_BODY_BYTES}, then hands it on as text. */
    private void body(RoutingContext rc, java.util.function.Consumer<String> then) {
        if (rc.body() != null && rc.body().available()) { // a body handler of the service read it already
            Buffer read = rc.body().buffer();
            if (read != null && read.length() > MAX_BODY_BYTES) {
                tooLarge(rc);
            } else {
                then.accept(read == null ? "" : read.toString(StandardCharsets.UTF_8));
            }
            return;
        }
        Buffer body = Buffer.buffer();
        boolean[] over = { false };
        rc.request().handler(chunk -> {
            if (over[0]) {
                return;
            }
            if (body.length() + chunk.length() > MAX_BODY_BYTES) {
                over[0] = true;
                tooLarge(rc);
            } else {
                body.appendBuffer(chunk);
            }
        });
        rc.request().exceptionHandler(e -> LOG.debugf("admin request body: %s", e.getMessage()));
        rc.request().endHandler(v -> {
            if (!over[0]) {
                then.accept(body.toString(StandardCharsets.UTF_8));
            }
        });
        rc.request().resume();
    }

    private void tooLarge(RoutingContext rc) {
        rc.response().putHeader("Connection", "close");
        send(rc, Problems.of(413, "Content Too Large", "content-too-large",
                "The body holds more than " + MAX_BODY_BYTES + " bytes: an override is a small JSON object"));
    }

    /** Whether a Content-Type says JSON (any parameters, such as a charset). */
    static boolean json(String type) {
        if (type == null) {
            return false;
        }
        String bare = type.split(";", 2)[0].trim();
        return bare.equalsIgnoreCase("application/json");
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
            throw badRequest("'" + key + "': " + e.getMessage());
        }
    }

    private static OverrideAdmin.Refused badRequest(String detail) {
        return new OverrideAdmin.Refused(400, detail);
    }

    private static String param(RoutingContext rc, String name, String otherwise) {
        String v = rc.request().getParam(name);
        return v == null ? otherwise : v;
    }

    private static int intParam(RoutingContext rc, String name, int otherwise) {
        String v = rc.request().getParam(name);
        if (v == null) {
            return otherwise;
        }
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw badRequest(name + " '" + v + "' is not a whole number");
        }
    }

    /** Sends what {@code answer} gives (JSON, or nothing for 204), or the problem of its failure. */
    private <T> void reply(RoutingContext rc, int status, Uni<T> answer) {
        answer.subscribe().with(value -> {
            if (rc.response().ended()) {
                return;
            }
            if (status == 204 || value == null) {
                rc.response().setStatusCode(204).end();
            } else {
                rc.response().setStatusCode(status).putHeader("Content-Type", "application/json").end(text(value));
            }
        }, failure -> fail(rc, failure));
    }

    private String text(Object value) {
        try {
            return json.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("an admin view could not be written as JSON", e);
        }
    }

    private void fail(RoutingContext rc, Throwable failure) {
        if (failure instanceof OverrideAdmin.Refused refused) {
            refused(rc, refused);
        } else if (failure instanceof StoreUnavailableException) {
            send(rc, Problems.storeUnavailable());
        } else {
            LOG.warnf("The admin could not answer %s %s: %s", rc.request().method(), rc.normalizedPath(), failure.toString());
            send(rc, Problems.of(500, "Internal Server Error", "internal",
                    "The admin could not answer: " + failure.getMessage()));
        }
    }

    private void refused(RoutingContext rc, OverrideAdmin.Refused e) {
        String title = switch (e.status) {
            case 404 -> "Not Found";
            case 409 -> "Conflict";
            case 415 -> "Unsupported Media Type";
            case 503 -> "Service Unavailable";
            default -> "Bad Request";
        };
        send(rc, Problems.of(e.status, title, e.kind, e.getMessage()));
    }

    private void notFound(RoutingContext rc) {
        send(rc, Problems.of(404, "Not Found", "not-found", "There is no admin resource at " + rc.normalizedPath()));
    }

    private void notAllowed(RoutingContext rc, String allowed) {
        rc.response().putHeader("Allow", allowed);
        send(rc, Problems.of(405, "Method Not Allowed", "method-not-allowed",
                rc.request().method() + " is not allowed here: " + allowed));
    }

    private void send(RoutingContext rc, Problem problem) {
        if (!rc.response().ended()) {
            problems.send(rc.response(), problem);
        }
    }
}
