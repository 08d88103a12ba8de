package dev.slidegate.config;

import java.util.List;
import java.util.Optional;

import org.jboss.logging.Logger;

import dev.slidegate.core.BoundedInspection;
import dev.slidegate.core.Breaker;
import dev.slidegate.core.DecisionStore;
import dev.slidegate.core.StoreInspection;
import dev.slidegate.redis.RefusalCache;

/**
 * The store stack as {@link StoreProducer} assembled it, in one place: the decisions' stack (for Redis:
 * {@code Metered(Fallback(RefusalCache(Redis), Memory, Breaker))}; in process: {@code Metered(Memory)}),
 * the admin's inspection stack (for Redis: {@code Bounded(ResetHooks(Redis on connections of its own))};
 * in process: {@code Bounded(Memory)}), the breaker between Redis and the fail modes when there is one (health reads it
 * from here, never by unwrapping decorators), and everything in the stack that owns a thread, a timer
 * or a client, closed at shutdown in reverse order of creation.
 *
 * @param decisions the top of the decisions' stack: what every decision asks
 * @param breaker the breaker in front of Redis; empty for the in-process store
 * @param refusals the refusals remembered in front of Redis; empty in process or when turned off
 * @param owned what {@link #close()} closes
 * @param overrides where overrides of limits are kept by default: in Redis with the Redis store, else in
 *        this instance's memory
 * @param inspection where the admin reads states, counts and listings, and resets keys
 * @param probe what readiness asks of the shared store
 * @param fleetClock the clock every instance judges alike by (override expiry): with Redis, the instance's clock set
 *        to the Redis server's ({@link dev.slidegate.redis.RedisClock}); in process, the instance's own
 * @param hotKeys the hot keys admitted from permits taken ahead of Redis; empty in process or when turned off
 * @param instants where the shared store's clock falls on the instance's, as its answers said: where a held call's permit
 *        lies however late its own answer came ({@link dev.slidegate.core.PermitInstants}); unknown in process (the
 *        instance's own clock) and on a cluster (a clock per node)
 */
public record StoreStack(DecisionStore decisions, Optional<Breaker> breaker, Optional<RefusalCache> refusals,
        List<AutoCloseable> owned, dev.slidegate.api.OverrideSource overrides, StoreInspection inspection, WriteProbe probe,
        dev.slidegate.core.Clock fleetClock, Optional<dev.slidegate.core.HotKeys> hotKeys,
        dev.slidegate.core.PermitInstants instants)
        implements
            AutoCloseable {

    /** A write to the shared store, as every decision writes: readiness asks it (the in-process store needs none). */
    @FunctionalInterface
    public interface WriteProbe {

        /** {@code null} when the store took a write within {@code budget}, else why not. */
        String write(java.time.Duration budget);

        /** The probe of a stack without a shared store: always written. */
        WriteProbe NONE = budget -> null;
    }

    /** The most admin reads in flight at once, whoever asks (see {@link BoundedInspection}). */
    public static final int ADMIN_IN_FLIGHT = 16;

    private static final Logger LOG = Logger.getLogger("dev.slidegate");

    public StoreStack {
        owned = List.copyOf(owned);
    }

    /** A stack whose store's clock is not learned ({@link dev.slidegate.core.PermitInstants#unknown()}). */
    public StoreStack(DecisionStore decisions, Optional<Breaker> breaker, Optional<RefusalCache> refusals,
            List<AutoCloseable> owned, dev.slidegate.api.OverrideSource overrides, StoreInspection inspection, WriteProbe probe,
            dev.slidegate.core.Clock fleetClock, Optional<dev.slidegate.core.HotKeys> hotKeys) {
        this(decisions, breaker, refusals, owned, overrides, inspection, probe, fleetClock, hotKeys,
                dev.slidegate.core.PermitInstants.unknown());
    }

    /**
     * The in-process stack: decisions through {@code decisions} (the store, perhaps metered), the admin
     * straight to the store, at most {@link #ADMIN_IN_FLIGHT} reads at once; overrides in this
     * instance's memory.
     */
    public static StoreStack inProcess(DecisionStore decisions, StoreInspection store, dev.slidegate.core.Clock clock) {
        return new StoreStack(decisions, Optional.empty(), Optional.empty(), List.of(),
                new dev.slidegate.core.LocalOverrideSource(), new BoundedInspection(store, ADMIN_IN_FLIGHT), WriteProbe.NONE,
                clock, Optional.empty());
    }

    /**
     * This stack with the permits of waiting policies occupying their windows for {@code toleranceMicros} beyond them, in
     * decisions and in the admin's reads alike ({@link dev.slidegate.core.LateOccupancy}).
     */
    public StoreStack occupyingLate(long toleranceMicros) {
        dev.slidegate.core.LateOccupancy late = new dev.slidegate.core.LateOccupancy(decisions, toleranceMicros);
        return new StoreStack(late, breaker, refusals, owned, overrides, late.inspection(inspection), probe, fleetClock,
                hotKeys, instants);
    }

    /** Refusals answered from memory of an earlier Redis refusal, without a Redis call, since start. */
    public long refusedLocally() {
        return refusals.map(RefusalCache::answeredLocally).orElse(0L);
    }

    /** Permits taken ahead of Redis for hot keys since start ({@link dev.slidegate.core.HotKeys#taken}). */
    public long takenAhead() {
        return hotKeys.map(dev.slidegate.core.HotKeys::taken).orElse(0L);
    }

    /** Of {@link #takenAhead()}, the permits that admitted a call. */
    public long usedAhead() {
        return hotKeys.map(dev.slidegate.core.HotKeys::used).orElse(0L);
    }

    /** Whether a shared (Redis) store sits under the decisions. */
    public boolean shared() {
        return breaker.isPresent();
    }

    @Override
    public void close() {
        for (int i = owned.size() - 1; i >= 0; i--) {
            AutoCloseable c = owned.get(i);
            try {
                c.close();
            } catch (Exception e) {
                LOG.debugf("closing %s: %s", c, e.getMessage());
            }
        }
    }
}
