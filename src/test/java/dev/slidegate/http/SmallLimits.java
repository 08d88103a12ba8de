package dev.slidegate.http;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.HashMap;
import java.util.Map;

/** The demo policies with limits small enough to reach in a test. */
public class SmallLimits implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        Map<String, String> config = new HashMap<>();
        config.put("slidegate.store", "memory");
        config.put("slidegate.policies.products.limits", "3/10m,5/1h");
        config.put("slidegate.policies.reports.limits", "3/1h");
        return config;
    }
}
