package dev.slidegate.memory;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;

import dev.slidegate.api.Decision;
import dev.slidegate.api.LimitState;
import dev.slidegate.api.Policy;
import dev.slidegate.core.Clock;
import dev.slidegate.core.LimiterStore;

/**
 * The in-process store: exact, thread safe (one monitor per key), answering synchronously.
 *
 * <p>
 * The number of keys is bounded by {@code maxKeys}. When a new key would exceed it, keys whose
 * windows are all empty are dropped first (that loses nothing); if that is not enough, the least
 * recently used tenth is dropped and a warning says that {@code slidegate.memory.max-keys} is too small.
 */
public final class MemoryStore implements LimiterStore {

    private static final Logger LOG = Logger.getLogger(MemoryStore.class.getName());
    private static final long WARN_EVERY_MICROS = 60_000_000L;

    private final Clock clock;
    private final int maxKeys;
    private final Map<String, ConcurrentHashMap<String, KeyState>> policies = new ConcurrentHashMap<>();
    private final AtomicInteger keyCount = new AtomicInteger();
    private final Object evictionLock = new Object();
    private long lastWarning;
    private boolean warned; // (a first instant of Long.MIN_VALUE made now - lastWarning overflow: it never warned)

    public MemoryStore(Clock clock, int maxKeys) {
        if (maxKeys < 1) {
            throw new IllegalArgumentException("maxKeys must be at least 1, was " + maxKeys);
        }
        this.clock = clock;
        this.maxKeys = maxKeys;
    }

    @Override
    public String name() {
        return "memory";
    }

    @Override
    public CompletionStage<Decision> acquire(Policy policy, String key, int cost) {
        try {
            return CompletableFuture.completedFuture(decide(policy, key, cost));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** The synchronous form of {@link #acquire}: in process there is nothing to wait for. */
    public Decision decide(Policy policy, String key, int cost) {
        long now = now(cost);
        while (true) {
            Decision decision = stateOf(policy, key, now).decide(policy, now, cost);
            if (decision != null) {
                return decision;
            }
            forget(policy, key);
        }
    }

    /**
     * Decides like {@link #decide} but reports only whether the call was admitted; allocates nothing
     * once the key exists, for callers that need no headers (and for benchmarks).
     */
    public boolean tryAcquire(Policy policy, String key, int cost) {
        long now = now(cost);
        while (true) {
            int outcome = stateOf(policy, key, now).tryAcquire(policy, now, cost);
            if (outcome >= 0) {
                return outcome == 1;
            }
            forget(policy, key);
        }
    }

    private long now(int cost) {
        if (cost < 1) {
            throw new IllegalArgumentException("cost must be at least 1, was " + cost);
        }
        return clock.nowMicros();
    }

    private KeyState stateOf(Policy policy, String key, long now) {
        ConcurrentHashMap<String, KeyState> keys = policies.computeIfAbsent(policy.name(), n -> new ConcurrentHashMap<>());
        KeyState state = keys.get(key);
        if (state == null) {
            KeyState created = newState(policy);
            state = keys.putIfAbsent(key, created);
            if (state == null) {
                state = created;
                if (keyCount.incrementAndGet() > maxKeys) {
                    evict(now);
                }
            }
        }
        return state;
    }

    /** Drops a key whose state was retired by eviction (normally already removed). */
    private void forget(Policy policy, String key) {
        Map<String, KeyState> keys = policies.get(policy.name());
        KeyState state = keys == null ? null : keys.get(key);
        if (state != null && state.isRetired() && keys.remove(key, state)) {
            keyCount.decrementAndGet();
        }
    }

    private static KeyState newState(Policy policy) {
        return switch (policy.strategy()) {
            case SLIDING_LOG -> new SlidingLogState(policy);
            case FIXED_WINDOW -> new FixedWindowState(policy);
            case SLIDING_COUNTER -> new SlidingCounterState(policy);
            case TOKEN_BUCKET -> new TokenBucketState(policy);
        };
    }

    @Override
    public CompletionStage<Void> reset(Policy policy, String key) {
        Map<String, KeyState> keys = policies.get(policy.name());
        KeyState state = keys == null ? null : keys.remove(key);
        if (state != null) {
            state.retire(0, true);
            keyCount.decrementAndGet();
        }
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletionStage<Decision> peek(Policy policy, String key) {
        long now = clock.nowMicros();
        Map<String, KeyState> keys = policies.get(policy.name());
        KeyState state = keys == null ? null : keys.get(key);
        if (state == null) {
            return CompletableFuture
                    .completedFuture(new Decision(policy, true, -1, 0, now, LimitState.untouched(policy.limits())));
        }
        return CompletableFuture.completedFuture(state.peek(policy, now));
    }

    /** Keys in name order; the cursor is the last key of the previous page. */
    @Override
    public CompletionStage<KeyPage> keys(Policy policy, String cursor, int limit) {
        long now = clock.nowMicros();
        Map<String, KeyState> keys = policies.getOrDefault(policy.name(), new ConcurrentHashMap<>());
        List<String> page = keys.entrySet().stream()
                .filter(e -> cursor.isEmpty() || e.getKey().compareTo(cursor) > 0)
                .filter(e -> e.getValue().activeAt(now))
                .map(Map.Entry::getKey).sorted().limit(limit + 1L).toList();
        boolean more = page.size() > limit;
        List<String> shown = more ? page.subList(0, limit) : page;
        return CompletableFuture.completedFuture(new KeyPage(shown, more ? shown.get(shown.size() - 1) : null));
    }

    @Override
    public CompletionStage<Long> count(Policy policy) {
        long now = clock.nowMicros();
        Map<String, KeyState> keys = policies.get(policy.name());
        return CompletableFuture
                .completedFuture(keys == null ? 0L : keys.values().stream().filter(s -> s.activeAt(now)).count());
    }

    /** How many keys the store holds now, over all policies. */
    public int size() {
        return keyCount.get();
    }

    private void evict(long now) {
        synchronized (evictionLock) {
            if (keyCount.get() <= maxKeys) {
                return;
            }
            for (Map<String, KeyState> keys : policies.values()) {
                keys.entrySet().removeIf(e -> dropIf(e.getValue().retire(now, false)));
            }
            int target = maxKeys - Math.max(1, maxKeys / 10);
            int excess = keyCount.get() - target;
            if (excess <= 0) {
                return;
            }
            long[] used = policies.values().stream().flatMap(m -> m.values().stream()).mapToLong(KeyState::lastUsed).toArray();
            Arrays.sort(used);
            long threshold = used[Math.min(excess, used.length) - 1];
            for (Map<String, KeyState> keys : policies.values()) {
                keys.entrySet().removeIf(e -> e.getValue().lastUsed() <= threshold && dropIf(e.getValue().retire(now, true)));
            }
            if (!warned || now - lastWarning >= WARN_EVERY_MICROS) {
                warned = true;
                lastWarning = now;
                LOG.log(Level.WARNING, "Slidegate memory store: {0} keys are active, more than slidegate.memory.max-keys={1}; "
                        + "dropped the least recently used, whose windows restart empty. Raise slidegate.memory.max-keys.",
                        new Object[] { used.length, maxKeys });
            }
        }
    }

    private boolean dropIf(boolean retired) {
        if (retired) {
            keyCount.decrementAndGet();
        }
        return retired;
    }
}
