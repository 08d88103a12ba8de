package dev.slidegate.testing;

import java.time.Duration;
import java.util.Map;

import dev.slidegate.config.SlidegateConfig;
import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;

/** A real {@link SlidegateConfig} mapping from properties, without starting Quarkus. */
public final class TestConfigs {

    private TestConfigs() {
    }

    public static SlidegateConfig slidegate(Map<String, String> properties) {
        return config(properties).getConfigMapping(SlidegateConfig.class);
    }

    /**
     * The whole configuration of {@code properties}, with the {@link SlidegateConfig} mapping; as in
     * Quarkus, unknown names under the mapping's prefix are not an error of the mapping itself.
     */
    public static io.smallrye.config.SmallRyeConfig config(Map<String, String> properties) {
        return config(properties, Map.of());
    }

    /** As {@link #config(Map)}, with environment variables too (ranked above the properties, as in Quarkus). */
    public static io.smallrye.config.SmallRyeConfig config(Map<String, String> properties, Map<String, String> environment) {
        return new SmallRyeConfigBuilder().withMapping(SlidegateConfig.class).withValidateUnknown(false)
                .withConverter(Duration.class, 100, new DurationConverter())
                .withSources(new PropertiesConfigSource(properties, "test", 250))
                .withSources(new io.smallrye.config.EnvConfigSource(environment, 300)).build();
    }
}
