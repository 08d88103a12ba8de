package dev.slidegate.core;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.slidegate.api.LimitOverride;
import dev.slidegate.api.OverrideSource;

/**
 * Overrides kept in this instance's memory: the shipped source with the in-process store, where every
 * window is this instance's too. They last until the instance stops.
 */
public final class LocalOverrideSource implements OverrideSource {

    private final Map<LimitOverride.Target, LimitOverride> overrides = new ConcurrentHashMap<>();
    private final List<Runnable> watchers = new CopyOnWriteArrayList<>();

    @Override
    public CompletionStage<List<LimitOverride>> load() {
        return CompletableFuture.completedFuture(List.copyOf(overrides.values()));
    }

    @Override
    public AutoCloseable watch(Runnable changed) {
        watchers.add(changed);
        return () -> watchers.remove(changed);
    }

    @Override
    public CompletionStage<Void> save(LimitOverride override) {
        overrides.put(override.target(), override);
        watchers.forEach(Runnable::run);
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletionStage<Void> remove(LimitOverride.Target target) {
        overrides.remove(target);
        watchers.forEach(Runnable::run);
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public String name() {
        return "memory";
    }
}
