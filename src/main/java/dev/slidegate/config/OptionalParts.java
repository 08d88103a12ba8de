package dev.slidegate.config;

import jakarta.enterprise.inject.build.compatible.spi.BuildCompatibleExtension;
import jakarta.enterprise.inject.build.compatible.spi.Discovery;
import jakarta.enterprise.inject.build.compatible.spi.ScannedClasses;

/**
 * Adds Slidegate's Redis beans ({@link RedisStackFactory}, {@link RedisPool}) while the service is built, only when
 * the service has {@code quarkus-redis-client}: as Quarkus extensions do with capabilities, a part of
 * Slidegate that
 * needs a dependency is there when the service added it, and absent (never failing the build) when not. (The health
 * checks need no help: {@code quarkus-smallrye-health} makes every {@code @Readiness} class a bean, and nothing else
 * does.) A CDI Lite build compatible extension, run by ArC at build time.
 */
public class OptionalParts implements BuildCompatibleExtension {

    /** A class of {@code quarkus-redis-client}. */
    static final String REDIS_CLIENT = "io.quarkus.redis.client.RedisOptionsCustomizer";

    @Discovery
    public void discover(ScannedClasses scanned) {
        if (present(REDIS_CLIENT)) {
            scanned.add(RedisStackFactory.class.getName());
            scanned.add(RedisPool.class.getName());
        }
    }

    /** Whether the service's class path has {@code className} (checked while it is built). */
    public static boolean present(String className) {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        try {
            Class.forName(className, false, loader != null ? loader : OptionalParts.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
