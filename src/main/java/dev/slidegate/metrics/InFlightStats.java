package dev.slidegate.metrics;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The calls in flight on this instance (policies with {@code max-in-flight}), per policy: for the admin, and where the
 * service has a Micrometer registry, for Prometheus: {@code slidegate_in_flight{policy}} (calls holding a lease here now)
 * and {@code slidegate_leases_lost_total{policy}} (leases found gone while their calls ran: this instance paused, or
 * could not reach the store, for longer than the lease time). Labels are policy names, never a caller's key.
 */
@Singleton
public class InFlightStats {

    private static final class PerPolicy {
        final AtomicInteger inFlight = new AtomicInteger();
        Counter lost;
    }

    private final Map<String, PerPolicy> byPolicy = new ConcurrentHashMap<>();
    private final MeterRegistry registry;

    @Inject
    InFlightStats(Instance<MeterRegistry> metrics) {
        this(metrics.isResolvable() ? metrics.get() : null);
    }

    /** @param registry where to publish, or {@code null}: counted here only */
    public InFlightStats(MeterRegistry registry) {
        this.registry = registry;
    }

    private PerPolicy of(String policy) {
        return byPolicy.computeIfAbsent(policy, name -> {
            PerPolicy p = new PerPolicy();
            if (registry != null) {
                Gauge.builder("slidegate.in_flight", p.inFlight, AtomicInteger::get)
                        .description("Calls holding a lease of a max-in-flight policy, on this instance").tag("policy", name)
                        .register(registry);
                p.lost = Counter.builder("slidegate.leases.lost")
                        .description("Leases found gone while their calls ran (a pause or an outage longer than the lease)")
                        .tag("policy", name).register(registry);
            }
            return p;
        });
    }

    /** A call of {@code policy} holds a lease here from now. */
    public void entered(String policy) {
        of(policy).inFlight.incrementAndGet();
    }

    /** A call of {@code policy} holds its lease here no longer: it ended, or its lease was found gone. */
    public void left(String policy) {
        of(policy).inFlight.decrementAndGet();
    }

    /** The leases of {@code calls} calls of {@code policy} were found gone while the calls ran, or when they ended. */
    public void lost(String policy, int calls) {
        PerPolicy p = of(policy);
        if (p.lost != null) {
            p.lost.increment(calls);
        }
    }

    /** Calls of {@code policy} holding a lease on this instance now. */
    public int inFlight(String policy) {
        PerPolicy p = byPolicy.get(policy);
        return p == null ? 0 : p.inFlight.get();
    }
}
