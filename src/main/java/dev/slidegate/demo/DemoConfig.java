package dev.slidegate.demo;

import java.util.Map;

import io.smallrye.config.ConfigMapping;

/** The demo API's own settings. */
@ConfigMapping(prefix = "demo")
public interface DemoConfig {

    /** Demo users for {@code POST /api/login}: {@code demo.users.<name>=<password>}. For demonstration only. */
    Map<String, String> users();
}
