package dev.slidegate.config;

import jakarta.annotation.Priority;
import jakarta.enterprise.event.Observes;

import org.eclipse.microprofile.config.ConfigProvider;

import io.quarkus.runtime.StartupEvent;

/**
 * Checks the settings first thing at start-up ({@link SettingsCheck}), whether or not anything else
 * reads them (with {@code slidegate.enabled=false} nothing may).
 */
class SettingsCheckOnStart {

    void onStart(@Observes @Priority(1) StartupEvent event, SlidegateConfig config) {
        SettingsCheck.check(ConfigProvider.getConfig(), config);
    }
}
