package dev.slidegate.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import dev.slidegate.api.LimitOverride;
import dev.slidegate.api.OverrideSource;
import dev.slidegate.core.Clock;
import dev.slidegate.core.Overrides;
import dev.slidegate.redis.RefusalCache;
import io.quarkus.arc.DefaultBean;

/**
 * Produces the overrides in force ({@link Overrides}) from their {@link OverrideSource}: the shipped one
 * (Redis with the Redis store, else memory) unless the service provides its own bean. They are loaded
 * at start-up, whenever the source says they changed, and every {@code slidegate.overrides.refresh};
 * a failed load keeps what was loaded last and says so once.
 */
@Singleton
class OverridesProducer {

    private static final Logger LOG = Logger.getLogger("dev.slidegate");

    /** The overrides and what keeps them current, closed at shutdown. */
    static final class Loaded implements AutoCloseable {
        final Overrides overrides;
        final List<AutoCloseable> owned = new ArrayList<>();

        Loaded(Overrides overrides) {
            this.overrides = overrides;
        }

        @Override
        public void close() {
            owned.forEach(c -> {
                try {
                    c.close();
                } catch (Exception e) {
                    LOG.debugf("closing %s: %s", c, e.getMessage());
                }
            });
        }
    }

    @Produces
    @Singleton
    @DefaultBean
    OverrideSource source(StoreStack stack) {
        return stack.overrides();
    }

    @Produces
    @Singleton
    Loaded loaded(OverrideSource source, Clock clock, StoreStack stack, SlidegateConfig config,
            io.vertx.mutiny.core.Vertx vertx) {
        Overrides overrides = new Overrides(clock);
        Loaded loaded = new Loaded(overrides);
        AtomicBoolean failing = new AtomicBoolean();
        java.util.function.Supplier<java.util.concurrent.CompletionStage<?>> reload = () -> load(source)
                .whenComplete((list, error) -> {
                    if (error != null) {
                        if (failing.compareAndSet(false, true)) {
                            LOG.warnf("Slidegate could not load the overrides from %s (%s): the %d loaded before stay in force",
                                    source.name(), error.getMessage(), overrides.all().size());
                        }
                        return;
                    }
                    if (failing.compareAndSet(true, false)) {
                        LOG.infof("Slidegate loads the overrides from %s again", source.name());
                    }
                    List<LimitOverride> before = overrides.all();
                    overrides.replaceAll(list);
                    if (!before.equals(overrides.all())) {
                        // a refusal remembered under the old limits must not outlive them
                        stack.refusals().ifPresent(RefusalCache::forgetAll);
                    }
                });
        overrides.loadWith(reload);
        try { // at start-up, wait a little so the first requests see the overrides
            reload.get().toCompletableFuture().get(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            // said by the reload when it failed; a slow source applies when it answers
        }
        try {
            loaded.owned.add(source.watch(() -> reload.get()));
        } catch (RuntimeException e) {
            LOG.warnf("Slidegate cannot watch %s for changes (%s): overrides apply within slidegate.overrides.refresh",
                    source.name(), e.getMessage());
        }
        Duration refresh = config.overrides().refresh();
        long timer = vertx.getDelegate().setPeriodic(refresh.toMillis(), id -> reload.get());
        loaded.owned.add(() -> vertx.getDelegate().cancelTimer(timer));
        return loaded;
    }

    /** The source's overrides; a source that throws instead of failing its stage fails the stage. */
    private static java.util.concurrent.CompletionStage<List<LimitOverride>> load(OverrideSource source) {
        try {
            return source.load();
        } catch (RuntimeException e) {
            return java.util.concurrent.CompletableFuture.failedFuture(e);
        }
    }

    void close(@Disposes Loaded loaded) {
        loaded.close();
    }

    @Produces
    @Singleton
    Overrides overrides(Loaded loaded) {
        return loaded.overrides;
    }
}
