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
        return new SmallRyeConfigBuilder().withMapping(SlidegateConfig.class)
                .withConverter(Duration.class, 100, new DurationConverter())
                .withSources(new PropertiesConfigSource(properties, "test", 500)).build()
                .getConfigMapping(SlidegateConfig.class);
    }
}
