package dev.slidegate.admin;

import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;

import dev.slidegate.config.SlidegateConfig;
import io.quarkus.arc.properties.UnlessBuildProperty;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.runtime.configuration.ConfigurationException;

/**
 * The admin is built into a service only when {@code slidegate.admin.enabled=true} while it is built: its beans
 * ({@link AdminRoutes}, {@link AdminService}, {@link OverrideAdmin}) exist only then, so a service without the admin
 * carries none of its code (nor the JSON machinery its answers need) in its native executable. This bean stands in
 * when it was built without: it stops a start-up that asks for the admin at run time with one sentence, rather than
 * leaving an operator to find the root answering 404.
 */
@Singleton
@UnlessBuildProperty(name = AdminBuild.ENABLED, stringValue = "true", enableIfMissing = true)
class AdminBuild {

    /** The setting, read when the service is built and again when it starts. */
    static final String ENABLED = "slidegate.admin.enabled";

    void onStart(@Observes StartupEvent event, SlidegateConfig config) {
        if (config.admin().enabled()) {
            throw new ConfigurationException("Invalid Slidegate configuration: " + ENABLED + "=true when the service "
                    + "starts, but it was built without the admin (" + ENABLED + " was not 'true' when it was built): set "
                    + ENABLED + "=true in application.properties (or when building) and build it again");
        }
    }
}
