package dev.slidegate.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.slidegate.api.Limit;
import dev.slidegate.api.Policy;
import dev.slidegate.core.ByIdentity;

/**
 * How an outgoing policy's calls are paced (issue 39): each window {@code slidegate.upstream.margin} longer than
 * configured (a call reaches its upstream a little after its permit), and, for a policy whose calls may wait, one more
 * limit that spreads them evenly. Limits an upstream published are paced the same way, never faster than the configured
 * policy ({@link #usable}).
 */
final class Pacing {

    private final long marginMicros;
    private final boolean spread;
    /** The limit that spreads each paced policy's calls, by that policy: no count of the upstream's quota. */
    private final Map<Policy, Limit> spreading = new ConcurrentHashMap<>();
    /** Each policy with the margin added to its windows, by the configured policy's identity. */
    private final ByIdentity<Policy, Policy> withMargin;
    /** Told the name of each policy paced here, once, when its paced form is made ({@link #margin(Policy, long)}). */
    private final java.util.function.Consumer<String> margined;

    Pacing(long marginMicros, boolean spread, java.util.function.Consumer<String> margined) {
        this.marginMicros = marginMicros;
        this.spread = spread;
        this.margined = margined;
        Map<Policy, Policy> made = new ConcurrentHashMap<>(); // one paced policy per configured one, whatever the cache forgot
        this.withMargin = new ByIdentity<>(p -> made.computeIfAbsent(p, c -> margin(c, spacing(c))));
    }

    /** The configured policy as its calls are paced. */
    Policy paced(Policy configured) {
        return withMargin.get(configured);
    }

    /** {@code configured} paced at {@code limits} an upstream published instead, never spread faster than configured. */
    Policy paced(Policy configured, List<Limit> limits) {
        return margin(configured.withLimits(limits), spacing(configured));
    }

    /** The limit that spreads the calls of a paced policy, or {@code null}. */
    Limit spreading(Policy paced) {
        return spreading.get(paced);
    }

    /**
     * Limits read from the store, as this instance paces at them: none when they would raise a configured limit (the
     * store is shared with whoever can write Redis; learned limits only ever lower what is configured).
     */
    static List<Limit> usable(Policy configured, List<Limit> limits) {
        if (limits == null || limits.isEmpty() || limits.size() < configured.limits().size()) {
            return List.of();
        }
        for (int i = 0; i < configured.limits().size(); i++) {
            Limit c = configured.limits().get(i);
            Limit l = limits.get(i);
            if (l.windowMicros() != c.windowMicros() || l.permits() > c.permits()) {
                return List.of();
            }
        }
        try {
            configured.withLimits(limits); // no two of one window
        } catch (IllegalArgumentException e) {
            return List.of();
        }
        return List.copyOf(limits);
    }

    /**
     * The policy an outgoing call is decided under: each window {@link #marginMicros} longer; and, for a policy of calls
     * whose calls may wait ({@code max-wait} above 0) with {@code slidegate.upstream.spread}, one more limit that spreads its
     * calls
     * evenly, one per (W + margin) / N of its fastest limit: a fleet never bursts into a quota it may share with traffic
     * it does not see, and calls held by an upstream's answer go out one by one when it ends, not all at once. The
     * spacing is never shorter than {@code floorMicros}, the configured policy's own: a learned limit can only slow a
     * client, so a fast window an upstream publishes ({@code "fast";q=1000;w=1}) cannot switch spreading off (issue 56).
     */
    private Policy margin(Policy p, long floorMicros) {
        margined.accept(p.name()); // its windows carry the margin: the store's late occupancy leaves them alone
        List<Limit> limits = new ArrayList<>(p.limits().stream().map(this::margin).toList());
        // a policy of tokens is not spread: its calls weigh different numbers of permits, and a spacing of permits would
        // refuse every call heavier than one spacing holds (a learned 2000/1s made 2/1ms: no call of 78 tokens fit)
        boolean ofCalls = p.unit() == null || p.unit().equals(Policy.REQUESTS);
        if (spread && ofCalls && p.maxWaitMicros() > 0) {
            long spacing = Math.max(floorMicros, spacing(limits));
            Limit even = spacing >= 1000 ? new Limit(1, spacing)
                    : new Limit((int) Math.min(Integer.MAX_VALUE, (1000 + spacing - 1) / spacing), 1000);
            if (even.permits() < limits.stream().mapToInt(Limit::permits).min().orElse(0)
                    && limits.stream().noneMatch(l -> l.windowMicros() == even.windowMicros())) {
                limits.add(even);
                Policy spreadOut = p.withLimits(List.copyOf(limits));
                spreading.put(spreadOut, even);
                return spreadOut;
            }
        }
        return limits.equals(p.limits()) ? p : p.withLimits(List.copyOf(limits));
    }

    /** The spacing of a policy's configured limits with the margin, (W + margin) / N of its fastest one (µs). */
    private long spacing(Policy configured) {
        return spacing(configured.limits().stream().map(this::margin).toList());
    }

    private static long spacing(List<Limit> limits) {
        long spacing = Long.MAX_VALUE;
        for (Limit l : limits) {
            spacing = Math.min(spacing, Math.max(1, l.windowMicros() / l.permits()));
        }
        return spacing;
    }

    private Limit margin(Limit l) {
        try {
            return l.calendar() ? l : new Limit(l.permits(), l.windowMicros() + marginMicros);
        } catch (IllegalArgumentException e) { // a window of 366 days has no room for more
            return l;
        }
    }
}
