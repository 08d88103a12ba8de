package dev.slidegate.metrics;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * The calls this instance holds for their permits (a policy's {@code max-wait}), per policy and per key, for the admin;
 * and, where the service has a Micrometer registry, for Prometheus: {@code slidegate_waiting{policy}} (held now),
 * {@code slidegate_wait_seconds{policy}} (how long each admitted call was held: a histogram) and
 * {@code slidegate_wait_outcomes_total{policy, outcome}} with outcome {@code late} (woke later than the late tolerance
 * and was decided again), {@code gone} (its HTTP client went away) or {@code waiting_room_full} (could have waited,
 * refused at once). Labels are policy names and fixed words, never a caller's key.
 */
@Singleton
public class WaitStats {

    /** One policy's numbers. */
    private static final class PerPolicy {
        final AtomicInteger waiting = new AtomicInteger();
        final LongAdder waited = new LongAdder();
        final Map<String, AtomicInteger> byKey = new ConcurrentHashMap<>();
        Timer timer;
        Counter[] outcomes;
    }

    private static final String[] OUTCOMES = { "late", "gone", "waiting_room_full" };

    private final Map<String, PerPolicy> byPolicy = new ConcurrentHashMap<>();
    private final MeterRegistry registry;

    @Inject
    WaitStats(Instance<MeterRegistry> metrics) {
        this(metrics.isResolvable() ? metrics.get() : null);
    }

    /** @param registry where to publish, or {@code null}: counted here only */
    public WaitStats(MeterRegistry registry) {
        this.registry = registry;
    }

    private PerPolicy of(String policy) {
        return byPolicy.computeIfAbsent(policy, name -> {
            PerPolicy p = new PerPolicy();
            if (registry != null) {
                Gauge.builder("slidegate.waiting", p.waiting, AtomicInteger::get)
                        .description("Calls held until their permits' instant (max-wait), on this instance").tag("policy", name)
                        .register(registry);
                p.timer = Timer.builder("slidegate.wait").description("How long an admitted call was held for its permit")
                        .tag("policy", name).publishPercentileHistogram().minimumExpectedValue(Duration.ofMillis(1))
                        .maximumExpectedValue(Duration.ofMinutes(1)).register(registry);
                p.outcomes = new Counter[OUTCOMES.length];
                for (int i = 0; i < OUTCOMES.length; i++) {
                    p.outcomes[i] = Counter.builder("slidegate.wait.outcomes")
                            .description("Calls that could wait for their permits but did not run on them")
                            .tag("policy", name).tag("outcome", OUTCOMES[i]).register(registry);
                }
            }
            return p;
        });
    }

    /** A call of {@code policy} and {@code key} is held from now. */
    public void held(String policy, String key) {
        PerPolicy p = of(policy);
        p.waiting.incrementAndGet();
        p.byKey.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
    }

    /**
     * A held call is let go: {@code heldNanos} after it was decided, when it ran on its permit ({@code ran}), or not
     * (it woke too late, or its client went away).
     */
    public void released(String policy, String key, long heldNanos, boolean ran) {
        PerPolicy p = of(policy);
        p.waiting.decrementAndGet();
        p.byKey.computeIfPresent(key, (k, n) -> n.decrementAndGet() <= 0 ? null : n);
        if (ran) {
            p.waited.increment();
            if (p.timer != null) {
                p.timer.record(heldNanos, TimeUnit.NANOSECONDS);
            }
        }
    }

    /** A held call woke later than the late tolerance, and is decided again. */
    public void late(String policy) {
        count(policy, 0);
    }

    /** A held call's client went away. */
    public void gone(String policy) {
        count(policy, 1);
    }

    /** A call that could have waited was refused at once: the waiting room was full. */
    public void waitingRoomFull(String policy) {
        count(policy, 2);
    }

    private void count(String policy, int outcome) {
        PerPolicy p = of(policy);
        if (p.outcomes != null) {
            p.outcomes[outcome].increment();
        }
    }

    /** Calls of {@code policy} held on this instance now. */
    public int waiting(String policy) {
        PerPolicy p = byPolicy.get(policy);
        return p == null ? 0 : p.waiting.get();
    }

    /** Calls of {@code policy} and {@code key} held on this instance now. */
    public int waiting(String policy, String key) {
        PerPolicy p = byPolicy.get(policy);
        AtomicInteger n = p == null ? null : p.byKey.get(key);
        return n == null ? 0 : n.get();
    }

    /** Calls of {@code policy} admitted after waiting, since start. */
    public long waited(String policy) {
        PerPolicy p = byPolicy.get(policy);
        return p == null ? 0 : p.waited.sum();
    }
}
