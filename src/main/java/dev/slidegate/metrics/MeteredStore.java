package dev.slidegate.metrics;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Policy;
import dev.slidegate.core.ByIdentity;
import dev.slidegate.core.DecisionStore;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * A store that counts and times every decision for Prometheus, around the store that makes it:
 * {@code slidegate_decisions_total{policy, outcome}} with outcome admitted, refused, dry_run_refused,
 * fallback (the store could not decide; the policy's fail mode did) or error (nothing could decide:
 * a 503), {@code slidegate_charged_total{policy, unit}} (what the admitted calls were charged: their cost, in the
 * policy's unit, and what settlements charged beyond it), {@code slidegate_refunded_total{policy, unit}} (what
 * settlements gave back: charged less refunded is what the calls used) and {@code slidegate_decision_latency_seconds{store}} as
 * a histogram. Labels are policy
 * names (bounded by configuration) and fixed words, never a caller's key.
 */
public final class MeteredStore extends dev.slidegate.core.ForwardingStore {

    private final MeterRegistry registry;
    private final java.util.function.LongSupplier nanoTime;
    private final Timer storeTimer;
    private final Timer fallbackTimer;
    private final Map<String, Counter[]> byPolicy = new ConcurrentHashMap<>();
    /** The counters of the policy objects decided lately, found without hashing the name (an override's is new). */
    private final ByIdentity<Policy, Counter[]> byObject = new ByIdentity<>(p -> byPolicy.computeIfAbsent(p.name(),
            n -> counters(n, p.unit())));

    static final String[] OUTCOMES = { "admitted", "refused", "dry_run_refused", "fallback", "error" };

    /** @param nanoTime the instance's monotonic clock, which decisions are timed on */
    public MeteredStore(DecisionStore delegate, MeterRegistry registry, java.util.function.LongSupplier nanoTime) {
        super(delegate);
        this.nanoTime = nanoTime;
        this.registry = registry;
        this.storeTimer = timer(delegate.name());
        this.fallbackTimer = timer("fallback");
    }

    private Timer timer(String store) {
        return Timer.builder("slidegate.decision.latency").description("Time to decide one call, by the store that decided it")
                .tag("store", store).publishPercentileHistogram().minimumExpectedValue(Duration.ofNanos(500))
                .maximumExpectedValue(Duration.ofSeconds(2)).register(registry);
    }

    @Override
    public CompletionStage<Decision> acquire(Policy policy, String key, int cost, long maxWaitMicros) {
        return metered(policy, cost, nanoTime.getAsLong(), delegate.acquire(policy, key, cost, maxWaitMicros));
    }

    /**
     * A call of several policies, timed once; each decision counted as its policy's (a refusal is one decision: the
     * policies it left uncharged count nothing).
     */
    @Override
    public CompletionStage<java.util.List<Decision>> acquireAll(java.util.List<Asked> asks) {
        long start = nanoTime.getAsLong();
        return delegate.acquireAll(asks).whenComplete((made, error) -> {
            long nanos = nanoTime.getAsLong() - start;
            if (error != null) {
                storeTimer.record(nanos, TimeUnit.NANOSECONDS);
                asks.forEach(a -> byObject.get(a.policy())[4].increment());
                return;
            }
            (made.get(0).fallback() ? fallbackTimer : storeTimer).record(nanos, TimeUnit.NANOSECONDS);
            for (int i = 0; i < made.size(); i++) {
                Asked a = asks.get(Asked.of(asks, made, i));
                count(a.policy(), a.cost(), made.get(i));
            }
        });
    }

    @Override
    public CompletionStage<Decision> enter(Policy policy, String key, long maxWaitMicros) {
        return metered(policy, 1, nanoTime.getAsLong(), delegate.enter(policy, key, maxWaitMicros));
    }

    /** {@code decision}, asked at {@code start}, timed and counted by outcome; what an admitted call was charged. */
    private CompletionStage<Decision> metered(Policy policy, int cost, long start, CompletionStage<Decision> decision) {
        return decision.whenComplete((d, error) -> {
            long nanos = nanoTime.getAsLong() - start;
            if (error != null) {
                storeTimer.record(nanos, TimeUnit.NANOSECONDS);
                byObject.get(policy)[4].increment();
                return;
            }
            (d.fallback() ? fallbackTimer : storeTimer).record(nanos, TimeUnit.NANOSECONDS);
            count(policy, cost, d);
        });
    }

    /** Counts {@code d} by its outcome, and what it charged when it admitted. */
    private void count(Policy policy, int cost, Decision d) {
        Counter[] counters = byObject.get(policy);
        counters[d.fallback() ? 3 : d.allowed() ? 0 : d.policy().dryRun() ? 2 : 1].increment();
        if (d.allowed()) {
            counters[CHARGED].increment(cost);
        }
    }

    /** Where the counter of what admitted calls were charged is, after the outcomes'; then what settlements refunded. */
    private static final int CHARGED = OUTCOMES.length;
    private static final int REFUNDED = CHARGED + 1;

    @Override
    public CompletionStage<Long> settle(Policy policy, String key, long admittedAtMicros, int estimate, long actual) {
        return delegate.settle(policy, key, admittedAtMicros, estimate, actual).whenComplete((at, error) -> {
            if (error == null && actual != estimate) {
                Counter[] counters = byObject.get(policy);
                if (actual > estimate) {
                    counters[CHARGED].increment(actual - estimate);
                } else {
                    Counter refunded = counters[REFUNDED];
                    if (refunded == null) { // only policies that settle have one
                        refunded = Counter.builder("slidegate.refunded")
                                .description("What settlements gave back of the estimates charged, in the policy's unit")
                                .tag("policy", policy.name()).tag("unit", policy.unit()).register(registry);
                        counters[REFUNDED] = refunded;
                    }
                    refunded.increment(estimate - actual);
                }
            }
        });
    }

    private Counter[] counters(String policy, String unit) {
        Counter[] c = new Counter[OUTCOMES.length + 2];
        for (int i = 0; i < OUTCOMES.length; i++) {
            c[i] = Counter.builder("slidegate.decisions").description("Rate-limit decisions by policy and outcome")
                    .tag("policy", policy)
                    .tag("outcome", OUTCOMES[i]).register(registry);
        }
        c[CHARGED] = Counter.builder("slidegate.charged")
                .description("What the calls admitted were charged, in the policy's unit (requests, tokens, ...)")
                .tag("policy", policy).tag("unit", unit).register(registry);
        return c;
    }
}
