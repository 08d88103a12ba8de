package dev.slidegate.metrics;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * What the upstreams of this service's outgoing policies said, per policy, for the admin; and, where the service has a
 * Micrometer registry, for Prometheus: {@code slidegate_upstream_refusals_total{policy}} (429s the upstream answered),
 * {@code slidegate_upstream_holds_total{policy}} (times its answer held every call of a key),
 * {@code slidegate_upstream_limit{policy}} (the limit it published last, -1 before any) and
 * {@code slidegate_upstream_remaining{policy}} (what it said was left, -1 before any). The waits themselves are
 * {@code slidegate_wait_*}, as for every policy. Labels are policy names, never a key.
 */
@Singleton
public class UpstreamStats {

    /**
     * What one policy's upstream said last, for the admin.
     *
     * @param limit the limit it published last (-1: none yet)
     * @param remaining what it said was left (-1: none yet)
     * @param learned the limits Slidegate paces a key at because the upstream published lower ones than configured
     *        ({@code 50/1s}), or {@code null} while it paces at the configured ones
     * @param learnedAtMillis when that was learned (epoch ms), 0 never
     * @param refusals 429s the upstream answered, since start
     * @param last429AtMillis when it last answered 429 (epoch ms), 0 never
     * @param heldUntilMillis until when its last answer held a key's calls (epoch ms), 0 never
     * @param heldBecause why, in a few words ({@code Retry-After}, {@code RateLimit r=0})
     * @param seenAtMillis when a response was last read (epoch ms), 0 never
     */
    public record Seen(long limit, long remaining, String learned, long learnedAtMillis, long refusals, long last429AtMillis,
            long heldUntilMillis, String heldBecause, long seenAtMillis) {

        static final Seen NONE = new Seen(-1, -1, null, 0, 0, 0, 0, null, 0);
    }

    private static final class PerPolicy {
        final AtomicReference<Seen> seen = new AtomicReference<>(Seen.NONE);
        final AtomicLong limit = new AtomicLong(-1);
        final AtomicLong remaining = new AtomicLong(-1);
        Counter refusals;
        Counter holds;
    }

    private final Map<String, PerPolicy> byPolicy = new ConcurrentHashMap<>();
    private final MeterRegistry registry;

    @Inject
    UpstreamStats(Instance<MeterRegistry> metrics) {
        this(metrics.isResolvable() ? metrics.get() : null);
    }

    /** @param registry where to publish, or {@code null}: counted here only */
    public UpstreamStats(MeterRegistry registry) {
        this.registry = registry;
    }

    private PerPolicy of(String policy) {
        return byPolicy.computeIfAbsent(policy, name -> {
            PerPolicy p = new PerPolicy();
            if (registry != null) {
                p.refusals = Counter.builder("slidegate.upstream.refusals")
                        .description("429 answers of the upstream an outgoing policy paces calls to").tag("policy", name)
                        .register(registry);
                p.holds = Counter.builder("slidegate.upstream.holds")
                        .description("Times an upstream's answer held every call of a key until it has room")
                        .tag("policy", name).register(registry);
                Gauge.builder("slidegate.upstream.limit", p.limit, AtomicLong::get)
                        .description("The limit the upstream published last (-1: none yet)").tag("policy", name)
                        .register(registry);
                Gauge.builder("slidegate.upstream.remaining", p.remaining, AtomicLong::get)
                        .description("What the upstream said was left of its limit (-1: none yet)").tag("policy", name)
                        .register(registry);
            }
            return p;
        });
    }

    /** A response of {@code policy}'s upstream was read: its published limit and remainder (-1 where it said none). */
    public void seen(String policy, long limit, long remaining, long nowMillis) {
        PerPolicy p = of(policy);
        if (limit >= 0) {
            p.limit.set(limit);
        }
        if (remaining >= 0) {
            p.remaining.set(remaining);
        }
        p.seen.updateAndGet(s -> new Seen(limit >= 0 ? limit : s.limit(), remaining >= 0 ? remaining : s.remaining(),
                s.learned(), s.learnedAtMillis(), s.refusals(), s.last429AtMillis(), s.heldUntilMillis(), s.heldBecause(),
                nowMillis));
    }

    /** The upstream answered 429. */
    public void refused(String policy, long nowMillis) {
        PerPolicy p = of(policy);
        if (p.refusals != null) {
            p.refusals.increment();
        }
        p.seen.updateAndGet(s -> new Seen(s.limit(), s.remaining(), s.learned(), s.learnedAtMillis(), s.refusals() + 1,
                nowMillis, s.heldUntilMillis(), s.heldBecause(), s.seenAtMillis()));
    }

    /** The upstream's answer held every call of a key of {@code policy} until {@code untilMillis}, {@code because}. */
    public void held(String policy, long untilMillis, String because) {
        PerPolicy p = of(policy);
        if (p.holds != null) {
            p.holds.increment();
        }
        p.seen.updateAndGet(s -> new Seen(s.limit(), s.remaining(), s.learned(), s.learnedAtMillis(), s.refusals(),
                s.last429AtMillis(), Math.max(untilMillis, s.heldUntilMillis()), because, s.seenAtMillis()));
    }

    /** The limits Slidegate paces at now ({@code null}: the configured ones), learned at {@code nowMillis}. */
    public void learned(String policy, String limits, long nowMillis) {
        of(policy).seen.updateAndGet(s -> new Seen(s.limit(), s.remaining(), limits, nowMillis, s.refusals(),
                s.last429AtMillis(), s.heldUntilMillis(), s.heldBecause(), s.seenAtMillis()));
    }

    /** What {@code policy}'s upstream said last; {@link Seen#limit()} -1 and all else empty before any response. */
    public Seen last(String policy) {
        PerPolicy p = byPolicy.get(policy);
        return p == null ? Seen.NONE : p.seen.get();
    }
}
