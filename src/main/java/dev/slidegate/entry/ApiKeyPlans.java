package dev.slidegate.entry;

import java.util.HashMap;
import java.util.Map;

import jakarta.inject.Singleton;

import dev.slidegate.api.KeyResolver;
import dev.slidegate.api.PlanResolver;
import dev.slidegate.config.SlidegateConfig;
import io.quarkus.arc.DefaultBean;
import io.quarkus.runtime.configuration.ConfigurationException;

/**
 * The shipped {@link PlanResolver}: the API key in {@code slidegate.plans.header} (default
 * {@code X-Api-Key}) names the plan, as listed in {@code slidegate.plans.api-keys.<plan>}.
 */
@Singleton // no client proxy: created, and its configuration checked, at start-up
@DefaultBean
public class ApiKeyPlans implements PlanResolver {

    private final String header;
    private final Map<String, String> planByKey = new HashMap<>();

    public ApiKeyPlans(SlidegateConfig config) {
        header = config.plans().header();
        config.plans().apiKeys().forEach((plan, keys) -> {
            for (String key : keys) {
                String other = planByKey.put(key.trim(), plan);
                if (other != null && !other.equals(plan)) {
                    throw new ConfigurationException(
                            "Invalid Slidegate configuration: slidegate.plans.api-keys: an API key is listed "
                                    + "under both plan '" + other + "' and plan '" + plan + "': keep it under one");
                }
            }
        });
    }

    @Override
    public boolean fromRequestAlone() {
        return true; // a header
    }

    @Override
    public String plan(KeyResolver.Call call) {
        if (call.request() == null) {
            return null;
        }
        String key = call.request().header(header);
        return key == null ? null : planByKey.get(key.trim());
    }
}
