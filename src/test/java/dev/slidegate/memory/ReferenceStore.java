package dev.slidegate.memory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Limit;
import dev.slidegate.api.LimitState;
import dev.slidegate.api.Policy;
import dev.slidegate.api.Strategy;
import dev.slidegate.core.Clock;
import dev.slidegate.core.LimiterStore;

/**
 * The obvious, slow implementation of each strategy, straight from its definition: every recorded
 * permit in a list, windows counted by scanning. Scenarios and random timelines compare the real
 * stores with it.
 *
 * <p>
 * Limits may change between calls for the same policy name (an override): state is kept per window
 * length, so a limit of a window counted before goes on from what it recorded, and a token bucket
 * whose N changed keeps the whole permits it had used (at most the new N), at the new rate.
 */
public final class ReferenceStore implements LimiterStore {

    private final Clock clock;
    private final Map<String, List<Long>> logs = new HashMap<>();
    private final Map<String, Long> counters = new HashMap<>();
    private final Map<String, Long> last = new HashMap<>();
    // token bucket as a continuous-state leaky bucket: level (in microseconds of drain), last conforming time
    // and the N it was filled under
    private final Map<String, long[]> buckets = new HashMap<>();

    public ReferenceStore(Clock clock) {
        this.clock = clock;
    }

    @Override
    public String name() {
        return "reference";
    }

    @Override
    public synchronized CompletionStage<Decision> acquire(Policy policy, String key, int cost) {
        String id = policy.name() + "\u0000" + key;
        long now = Math.max(clock.nowMicros(), last.getOrDefault(id, Long.MIN_VALUE));
        last.put(id, now);
        if (policy.strategy() == Strategy.TOKEN_BUCKET) {
            for (Limit l : policy.limits()) { // a bucket filled under another N is carried over once, at the first call
                long[] b = buckets.get(id + "\u0000" + l.windowMicros());
                if (b != null && b[2] != l.permits()) {
                    buckets.put(id + "\u0000" + l.windowMicros(), new long[] { level(id, l, now), now, l.permits() });
                }
            }
        }
        List<Limit> limits = policy.limits();
        int tripped = -1;
        long retry = 0;
        for (int i = 0; i < limits.size(); i++) {
            long wait = waitFor(policy, id, i, now, cost);
            if (wait > retry) {
                retry = wait;
                tripped = i;
            }
        }
        boolean allowed = tripped < 0;
        if (allowed || policy.countRejected()) {
            record(policy, id, now, cost);
            if (!allowed) {
                tripped = -1;
                retry = 0;
                for (int i = 0; i < limits.size(); i++) {
                    long wait = waitFor(policy, id, i, now, cost);
                    if (wait > retry) {
                        retry = wait;
                        tripped = i;
                    }
                }
            }
        }
        List<LimitState> states = new ArrayList<>();
        for (int i = 0; i < limits.size(); i++) {
            states.add(state(policy, id, i, now));
        }
        return CompletableFuture.completedFuture(new Decision(policy, allowed, tripped, allowed ? 0 : retry, now, states));
    }

    private long waitFor(Policy policy, String id, int i, long now, int cost) {
        Limit l = policy.limits().get(i);
        if (cost > l.permits()) {
            return l.windowMicros();
        }
        if (policy.strategy() == Strategy.FIXED_WINDOW) {
            long used = counters.getOrDefault(id + "\u0000" + l.windowMicros() + "\u0000" + now / l.windowMicros(), 0L);
            return used + cost > l.permits() ? (now / l.windowMicros() + 1) * l.windowMicros() - now : 0;
        }
        if (policy.strategy() == Strategy.SLIDING_COUNTER) {
            long s = cell(policy, l);
            long k = now / s;
            for (long next = k; next <= k + policy.cells() + 1; next++) {
                if (countFromCell(id, next - policy.cells(), s) + cost <= l.permits()) {
                    return next == k ? 0 : next * s - now;
                }
            }
            throw new IllegalStateException("unreachable");
        }
        if (policy.strategy() == Strategy.TOKEN_BUCKET) {
            long t = interval(l);
            return level(id, l, now) + cost * t - l.permits() * t;
        }
        List<Long> inWindow = newestFirstInWindow(id, now, l);
        int k = l.permits() - cost + 1; // admitted iff fewer than k in the window
        return inWindow.size() < k ? 0 : inWindow.get(k - 1) + l.windowMicros() + 1 - now;
    }

    private LimitState state(Policy policy, String id, int i, long now) {
        Limit l = policy.limits().get(i);
        if (policy.strategy() == Strategy.FIXED_WINDOW) {
            long used = counters.getOrDefault(id + "\u0000" + l.windowMicros() + "\u0000" + now / l.windowMicros(), 0L);
            long reset = used == 0 ? 0 : (now / l.windowMicros() + 1) * l.windowMicros() - now;
            return new LimitState(l, Math.max(0, l.permits() - used), reset);
        }
        if (policy.strategy() == Strategy.SLIDING_COUNTER) {
            long s = cell(policy, l);
            long from = now / s - policy.cells();
            long used = countFromCell(id, from, s);
            long oldest = logs.getOrDefault(id, List.of()).stream().mapToLong(t -> t / s).filter(c -> c >= from).min()
                    .orElse(-1);
            long reset = used == 0 ? 0 : (oldest + policy.cells() + 1) * s - now;
            return new LimitState(l, Math.max(0, l.permits() - used), reset);
        }
        if (policy.strategy() == Strategy.TOKEN_BUCKET) {
            long t = interval(l);
            long level = level(id, l, now);
            long used = (level + t - 1) / t;
            return new LimitState(l, Math.max(0, l.permits() - used), level == 0 ? 0 : (level - 1) % t + 1);
        }
        List<Long> inWindow = newestFirstInWindow(id, now, l);
        int used = Math.min(inWindow.size(), l.permits());
        long reset = used == 0 ? 0 : inWindow.get(used - 1) + l.windowMicros() + 1 - now;
        return new LimitState(l, l.permits() - used, reset);
    }

    private List<Long> newestFirstInWindow(String id, long now, Limit l) {
        List<Long> result = new ArrayList<>();
        for (long t : logs.getOrDefault(id, List.of())) {
            if (t >= now - l.windowMicros()) { // a permit at tick t counts through tick t + W
                result.add(t);
            }
        }
        result.sort((a, b) -> Long.compare(b, a));
        return result;
    }

    private void record(Policy policy, String id, long now, int cost) {
        keysByPolicy.computeIfAbsent(policy.name(), n -> new java.util.TreeSet<>()).add(id.substring(id.indexOf('\u0000') + 1));
        if (policy.strategy() == Strategy.FIXED_WINDOW) {
            for (int i = 0; i < policy.limits().size(); i++) {
                Limit l = policy.limits().get(i);
                counters.merge(id + "\u0000" + l.windowMicros() + "\u0000" + now / l.windowMicros(), (long) cost, Long::sum);
            }
            return;
        }
        if (policy.strategy() == Strategy.TOKEN_BUCKET) {
            for (int i = 0; i < policy.limits().size(); i++) {
                Limit l = policy.limits().get(i);
                long t = interval(l);
                buckets.put(id + "\u0000" + l.windowMicros(), new long[] { level(id, l, now) + cost * t, now, l.permits() });
            }
            return;
        }
        List<Long> log = logs.computeIfAbsent(id, k -> new ArrayList<>());
        for (int j = 0; j < cost; j++) {
            log.add(now);
        }
        if (policy.strategy() == Strategy.SLIDING_LOG && log.size() > policy.maxPermits()) {
            // a log keeps the newest max(N) instants, the most any limit of the policy reads
            log.subList(0, log.size() - policy.maxPermits()).clear();
        }
    }

    private static long cell(Policy policy, Limit l) {
        return (l.windowMicros() + policy.cells() - 1) / policy.cells();
    }

    /** Permits recorded in cells at or after {@code fromCell}. */
    private long countFromCell(String id, long fromCell, long cellSize) {
        return logs.getOrDefault(id, List.of()).stream().filter(t -> t / cellSize >= fromCell).count();
    }

    private static long interval(Limit l) {
        return Math.max(1, (l.windowMicros() + l.permits() - 1) / l.permits());
    }

    /**
     * The bucket's level at {@code now}: what it held at the last conforming call, drained since; when
     * it was filled under another N, the whole permits used then (at most this N) at this N's interval.
     */
    private long level(String id, Limit l, long now) {
        long[] b = buckets.get(id + "\u0000" + l.windowMicros());
        if (b == null) {
            return 0;
        }
        long level = Math.max(0, b[0] - (now - b[1]));
        if (b[2] == l.permits()) {
            return level;
        }
        long oldInterval = Math.max(1, (l.windowMicros() + b[2] - 1) / b[2]);
        long used = (level + oldInterval - 1) / oldInterval;
        return Math.min(used, l.permits()) * interval(l);
    }

    private final Map<String, java.util.TreeSet<String>> keysByPolicy = new HashMap<>();

    @Override
    public synchronized CompletionStage<Decision> peek(Policy policy, String key) {
        String id = policy.name() + "\u0000" + key;
        long now = Math.max(clock.nowMicros(), last.getOrDefault(id, Long.MIN_VALUE));
        List<LimitState> states = new ArrayList<>();
        for (int i = 0; i < policy.limits().size(); i++) {
            states.add(state(policy, id, i, now));
        }
        return CompletableFuture.completedFuture(new Decision(policy, true, -1, 0, now, states));
    }

    @Override
    public synchronized CompletionStage<KeyPage> keys(Policy policy, String cursor, int limit) {
        List<String> after = keysByPolicy.getOrDefault(policy.name(), new java.util.TreeSet<>()).stream()
                .filter(k -> cursor.isEmpty() || k.compareTo(cursor) > 0).limit(limit + 1L).toList();
        boolean more = after.size() > limit;
        List<String> page = more ? after.subList(0, limit) : after;
        return CompletableFuture.completedFuture(new KeyPage(page, more ? page.get(page.size() - 1) : null));
    }

    @Override
    public synchronized CompletionStage<Long> count(Policy policy) {
        return CompletableFuture
                .completedFuture((long) keysByPolicy.getOrDefault(policy.name(), new java.util.TreeSet<>()).size());
    }

    @Override
    public synchronized CompletionStage<Void> reset(Policy policy, String key) {
        java.util.Set<String> known = keysByPolicy.get(policy.name());
        if (known != null) {
            known.remove(key);
        }
        String id = policy.name() + "\u0000" + key;
        logs.remove(id);
        counters.keySet().removeIf(k -> k.startsWith(id + "\u0000"));
        buckets.keySet().removeIf(k -> k.startsWith(id + "\u0000"));
        return CompletableFuture.completedFuture(null);
    }
}
