package dev.slidegate.admin;

import java.nio.charset.StandardCharsets;

import org.jboss.logging.Logger;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.slidegate.api.StoreUnavailableException;
import dev.slidegate.http.Problem;
import dev.slidegate.http.ProblemMappers;
import dev.slidegate.http.Problems;
import io.smallrye.mutiny.Uni;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.RoutingContext;

/**
 * How the admin reads a request and answers it: bodies read with a cap, parameters, JSON written by Slidegate's own
 * mapper (the service's naming strategy or inclusion settings never rename the documented members), and every
 * refusal as a problem body.
 */
final class AdminAnswers {

    private static final Logger LOG = Logger.getLogger("dev.slidegate");
    /** The largest request body read (an override is at most {@link OverrideBodies#MAX_BODY} characters). */
    static final int MAX_BODY_BYTES = 64 * 1024;

    private final ProblemMappers problems;
    private final ObjectMapper json = new ObjectMapper();

    AdminAnswers(ProblemMappers problems) {
        this.problems = problems;
    }

    /** Reads the request body, at most {@link #MAX_BODY_BYTES}, then hands it on as text. */
    void body(RoutingContext rc, java.util.function.Consumer<String> then) {
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

    void tooLarge(RoutingContext rc) {
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

    static OverrideAdmin.Refused badRequest(String detail) {
        return new OverrideAdmin.Refused(400, detail);
    }

    static String param(RoutingContext rc, String name, String otherwise) {
        String v = rc.request().getParam(name);
        return v == null ? otherwise : v;
    }

    static int intParam(RoutingContext rc, String name, int otherwise) {
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
    <T> void reply(RoutingContext rc, int status, Uni<T> answer) {
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

    String text(Object value) {
        try {
            return json.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("an admin view could not be written as JSON", e);
        }
    }

    void fail(RoutingContext rc, Throwable failure) {
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

    void refused(RoutingContext rc, OverrideAdmin.Refused e) {
        String title = switch (e.status) {
            case 404 -> "Not Found";
            case 409 -> "Conflict";
            case 415 -> "Unsupported Media Type";
            case 503 -> "Service Unavailable";
            default -> "Bad Request";
        };
        send(rc, Problems.of(e.status, title, e.kind, e.getMessage()));
    }

    void notFound(RoutingContext rc) {
        send(rc, Problems.of(404, "Not Found", "not-found", "There is no admin resource at " + rc.normalizedPath()));
    }

    void notAllowed(RoutingContext rc, String allowed) {
        rc.response().putHeader("Allow", allowed);
        send(rc, Problems.of(405, "Method Not Allowed", "method-not-allowed",
                rc.request().method() + " is not allowed here: " + allowed));
    }

    void send(RoutingContext rc, Problem problem) {
        if (!rc.response().ended()) {
            problems.send(rc.response(), problem);
        }
    }
}
