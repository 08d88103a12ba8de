package dev.slidegate.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import dev.slidegate.api.OverrideSource;
import dev.slidegate.core.OverrideChanges;
import dev.slidegate.core.Overrides;
import io.quarkus.arc.DefaultBean;

/**
 * Produces the overrides in force ({@link Overrides}) from their {@link OverrideSource}: the shipped one (Redis with the
 * Redis store, else memory) unless the service provides its own bean. They are loaded at start-up, whenever the source
 * says they changed, and every {@code slidegate.overrides.refresh}; a failed load keeps what was loaded last and says so
 * once. A source that can say what changed ({@link OverrideChanges}, the Redis one) is asked for that alone, and on the
 * periodic refresh only whether it still holds what was loaded; loads run one at a time, in order.
 *
 * <p>
 * A change needs no refusal remembered from Redis to be dropped: a remembered refusal answers only calls decided under
 * the very limits it was made under ({@code RefusalCache}), and an override that changes limits decides under others.
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

    /** Loads from the source one at a time: a load asked for while one runs waits for it (and is shared by the askers). */
    static final class Loads {
        private final Overrides overrides;
        private final OverrideSource source;
        private final OverrideChanges changes;
        private final AtomicBoolean failing = new AtomicBoolean();
        /** The source's version of what is loaded; -1 before the first load (then everything is loaded). */
        private volatile long version = -1;
        private CompletableFuture<Void> tail = CompletableFuture.completedFuture(null);
        private CompletableFuture<Void> queued;

        Loads(Overrides overrides, OverrideSource source) {
            this.overrides = overrides;
            this.source = source;
            this.changes = source instanceof OverrideChanges c ? c : null;
        }

        /** Loads what changed (or everything) after the loads asked for before. */
        synchronized CompletionStage<Void> next(boolean everything) {
            if (queued != null && !everything) {
                return queued;
            }
            CompletableFuture<Void> mine = new CompletableFuture<>();
            queued = everything ? null : mine;
            tail.whenComplete((x, e) -> {
                synchronized (this) {
                    if (queued == mine) {
                        queued = null;
                    }
                }
                once(everything).whenComplete((y, error) -> mine.complete(null));
            });
            tail = mine;
            return mine;
        }

        private CompletionStage<Void> once(boolean everything) {
            CompletionStage<Void> load;
            try {
                if (changes == null) {
                    load = source.load().thenAccept(overrides::replaceAll);
                } else {
                    load = changes.since(everything ? -1 : version).thenAccept(c -> {
                        if (c.complete()) {
                            overrides.replaceAll(c.set());
                        } else {
                            overrides.apply(c.set(), c.removed());
                        }
                        version = c.version();
                    });
                }
            } catch (RuntimeException e) { // a source that throws instead of failing its stage
                load = CompletableFuture.failedFuture(e);
            }
            return load.whenComplete((x, error) -> {
                if (error != null) {
                    if (failing.compareAndSet(false, true)) {
                        LOG.warnf("Slidegate could not load the overrides from %s (%s): the %d loaded before stay in force",
                                source.name(), error.getMessage(), overrides.size());
                    }
                } else if (failing.compareAndSet(true, false)) {
                    LOG.infof("Slidegate loads the overrides from %s again", source.name());
                }
            }).exceptionally(e -> null);
        }

        /**
         * The periodic refresh: a source that can say what changed is asked whether it still holds what was loaded (and
         * loaded in full when not), and rid of the expired overrides; any other is loaded in full.
         */
        void refresh() {
            if (changes == null) {
                next(true);
                return;
            }
            java.time.Instant now = overrides.now();
            overrides.all().stream().filter(o -> !o.activeAt(now)).forEach(o -> changes.expire(o).whenComplete((x, e) -> {
            }));
            changes.holds(overrides.size()).whenComplete((same, e) -> {
                if (e == null && !same) {
                    next(true);
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
    Loaded loaded(OverrideSource source, StoreStack stack, SlidegateConfig config, io.vertx.mutiny.core.Vertx vertx) {
        Overrides overrides = new Overrides(stack.fleetClock()); // expiry: judged alike on every instance
        Loaded loaded = new Loaded(overrides);
        Loads loads = new Loads(overrides, source);
        overrides.loadWith(() -> loads.next(false));
        try { // at start-up, wait a little so the first requests see the overrides
            loads.next(true).toCompletableFuture().get(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            // said by the load when it failed; a slow source applies when it answers
        }
        try {
            loaded.owned.add(source.watch(() -> loads.next(false)));
        } catch (RuntimeException e) {
            LOG.warnf("Slidegate cannot watch %s for changes (%s): overrides apply within slidegate.overrides.refresh",
                    source.name(), e.getMessage());
        }
        Duration refresh = config.overrides().refresh();
        long timer = vertx.getDelegate().setPeriodic(refresh.toMillis(), id -> loads.refresh());
        loaded.owned.add(() -> vertx.getDelegate().cancelTimer(timer));
        return loaded;
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
