package dev.slidegate.config;

import jakarta.annotation.Priority;
import jakarta.enterprise.event.Observes;

import org.eclipse.microprofile.config.ConfigProvider;

import io.quarkus.runtime.StartupEvent;

/**
 * Checks the settings at start-up ({@link SettingsCheck}) whether or not anything reads them: the
 * store producer checks them before it builds the store, which happens while Quarkus starts, but a
 * service that never builds a store would otherwise start unchecked.
 */
class SettingsCheckOnStart {

    void onStart(@Observes @Priority(1) StartupEvent event, SlidegateConfig config) {
        SettingsCheck.checkOnce(ConfigProvider.getConfig(), config);
    }
}
