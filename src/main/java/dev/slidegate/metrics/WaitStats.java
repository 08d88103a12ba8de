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

    /** How a held call was let go. */
    public enum Release {
        /** It ran on its permit. */
        RAN,
        /** It woke later than the late tolerance, and is decided again. */
        LATE,
        /** Its HTTP client went away while it waited. */
        GONE
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

    /** A held call of {@code policy} and {@code key} is let go, {@code heldNanos} after it was first asked. */
    public void released(String policy, String key, long heldNanos, Release how) {
        PerPolicy p = of(policy);
        p.waiting.decrementAndGet();
        p.byKey.computeIfPresent(key, (k, n) -> n.decrementAndGet() <= 0 ? null : n);
        if (how == Release.RAN) {
            p.waited.increment();
            if (p.timer != null) {
                p.timer.record(heldNanos, TimeUnit.NANOSECONDS);
            }
        } else if (p.outcomes != null) {
            p.outcomes[how == Release.LATE ? 0 : 1].increment();
        }
    }

    /**
     * A call of {@code policy} released on time (or admitted at once before its request was dispatched) was taken up by
     * its thread later than the late tolerance, and is decided again: counted as {@code late}, as a call that woke late is
     * (a release was counted already).
     */
    public void startedLate(String policy) {
        PerPolicy p = of(policy);
        if (p.outcomes != null) {
            p.outcomes[0].increment();
        }
    }

    /** A call that could have waited was refused at once: the waiting room was full. */
    public void waitingRoomFull(String policy) {
        PerPolicy p = of(policy);
        if (p.outcomes != null) {
            p.outcomes[2].increment();
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
