package dev.slidegate.demo;

import io.smallrye.config.ConfigMapping;
import java.util.Map;

/** The demo API's own settings. */
@ConfigMapping(prefix = "demo")
public interface DemoConfig {

    /** Demo users for {@code POST /api/login}: {@code demo.users.<name>=<password>}. For demonstration only. */
    Map<String, String> users();
}
