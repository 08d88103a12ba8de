package dev.slidegate.metrics;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import jakarta.inject.Singleton;

import dev.slidegate.api.Decision;

/** Admitted and refused decisions per policy since this instance started (dry-run refusals count as refused). */
@Singleton
public class DecisionStats {

    /** The two counters of one policy. */
    public record Counters(LongAdder admitted, LongAdder refused) {
    }

    private final Map<String, Counters> byPolicy = new ConcurrentHashMap<>();

    public void record(Decision d) {
        Counters c = byPolicy.computeIfAbsent(d.policy().name(), n -> new Counters(new LongAdder(), new LongAdder()));
        (d.allowed() ? c.admitted() : c.refused()).increment();
    }

    public long admitted(String policy) {
        Counters c = byPolicy.get(policy);
        return c == null ? 0 : c.admitted().sum();
    }

    public long refused(String policy) {
        Counters c = byPolicy.get(policy);
        return c == null ? 0 : c.refused().sum();
    }
}
