package dev.slidegate.demo;

import java.util.Map;

import io.smallrye.config.ConfigMapping;

/** The demo API's own settings. */
@ConfigMapping(prefix = "demo")
public interface DemoConfig {

    /** Demo users for {@code POST /api/login}: {@code demo.users.<name>=<password>}. For demonstration only. */
    Map<String, String> users();

    /** The chat's provider ({@link ModelClient}), when {@code quarkus.rest-client.model.url} names one. */
    Chat chat();

    interface Chat {

        /** The key the provider is called with ({@code Authorization: Bearer <key>}), if it asks for one. */
        @io.smallrye.config.WithName("model-key")
        java.util.Optional<String> modelKey();
    }

    /** The stand-in for the partner API the demo buys quotes from ({@link PartnerApi}). */
    Partner partner();

    interface Partner {

        /** Calls it grants per window, to all its callers together. */
        @io.smallrye.config.WithDefault("10")
        int limit();

        /** Its window, fixed and aligned to the epoch, in whole seconds. */
        @io.smallrye.config.WithName("window-seconds")
        @io.smallrye.config.WithDefault("10")
        int windowSeconds();
    }
}
