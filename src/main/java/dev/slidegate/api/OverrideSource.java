package dev.slidegate.api;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Where runtime overrides of limits ({@link LimitOverride}) are kept: the SPI for limits kept elsewhere
 * (a database, a tenant service). Provide a CDI bean of this type and Slidegate uses it instead of the
 * shipped one (Redis when the store is Redis, else this instance's memory).
 *
 * <p>
 * Slidegate loads every override at start-up, again whenever {@link #watch} says they changed, and in
 * any case every {@code slidegate.overrides.refresh} (so a missed notice heals). A failed load keeps the
 * overrides last loaded. Expired overrides may be returned: they are ignored.
 */
public interface OverrideSource {

    /** Every override this source holds. */
    CompletionStage<List<LimitOverride>> load();

    /**
     * Asks to be told when the overrides may have changed: Slidegate then loads them again. A source
     * that cannot tell relies on the periodic refresh.
     *
     * @return stops the watching
     */
    default AutoCloseable watch(Runnable changed) {
        return () -> {
        };
    }

    /**
     * Sets an override, replacing one of the same target (the admin API's {@code PUT}).
     *
     * @throws UnsupportedOperationException (in the stage) when overrides are changed elsewhere
     */
    default CompletionStage<Void> save(LimitOverride override) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException(
                "overrides are read-only here: they are managed where " + getClass().getSimpleName() + " reads them"));
    }

    /**
     * Removes the override of {@code target}, if any (the admin API's {@code DELETE}).
     *
     * @throws UnsupportedOperationException (in the stage) when overrides are changed elsewhere
     */
    default CompletionStage<Void> remove(LimitOverride.Target target) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException(
                "overrides are read-only here: they are managed where " + getClass().getSimpleName() + " reads them"));
    }

    /** A short name for logs and the admin page: {@code redis}, {@code memory}. */
    default String name() {
        return getClass().getSimpleName();
    }
}
