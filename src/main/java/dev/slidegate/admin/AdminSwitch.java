package dev.slidegate.admin;

import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;

import dev.slidegate.config.SlidegateConfig;
import io.vertx.ext.web.Router;

/** {@code slidegate.admin.enabled=false}: {@code /admin} and below answer 404 for everyone, before any authentication. */
@Singleton
class AdminSwitch {

    void register(@Observes Router router, SlidegateConfig config) {
        if (!config.admin().enabled()) {
            router.routeWithRegex("/admin(/.*)?").order(Integer.MIN_VALUE + 10)
                    .handler(rc -> rc.response().setStatusCode(404).end());
        }
    }
}
