package dev.slidegate.admin;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.subscription.Cancellable;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;

/** The live page: its files (HTML, CSS, JS, from {@code slidegate/admin/}) and its event stream. */
final class AdminPage {

    private final AdminService admin;
    private final AdminAnswers answers;

    AdminPage(AdminService admin, AdminAnswers answers) {
        this.admin = admin;
        this.answers = answers;
    }

    /** The live page, its links under the root it is served from. */
    static String page(String root) {
        return new String(file("index.html"), StandardCharsets.UTF_8).replace("{{root}}", root);
    }

    void file(RoutingContext rc, String name) {
        String type = name.endsWith(".js") ? "text/javascript;charset=UTF-8" : "text/css;charset=UTF-8";
        rc.response().putHeader("Content-Type", type).putHeader("Cache-Control", "no-cache")
                .end(Buffer.buffer(file(name)));
    }

    /** One file of the live page, from the class path ({@code slidegate/admin/}). */
    static byte[] file(String name) {
        try (InputStream in = AdminPage.class.getClassLoader().getResourceAsStream("slidegate/admin/" + name)) {
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
    void stream(RoutingContext rc) {
        HttpServerResponse response = rc.response();
        response.setChunked(true).putHeader("Content-Type", "text/event-stream").putHeader("Cache-Control", "no-cache");
        response.write(":\n\n"); // the headers now, so that the page's EventSource opens at once
        Cancellable ticks = Multi.createFrom().ticks().startingAfter(Duration.ofMillis(1)).every(Duration.ofSeconds(1))
                .onOverflow().drop()
                .onItem().transformToUniAndConcatenate(tick -> admin.sharedSnapshot(10).onFailure().recoverWithNull())
                .subscribe().with(snapshot -> {
                    if (!response.ended() && !response.closed()) {
                        response.write("data:" + answers.text(snapshot) + "\n\n");
                    }
                }, failure -> {
                    if (!response.ended() && !response.closed()) {
                        response.end();
                    }
                });
        response.closeHandler(v -> ticks.cancel());
        rc.addEndHandler(v -> ticks.cancel());
    }
}
