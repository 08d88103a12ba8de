package dev.slidegate.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import dev.slidegate.core.Breaker;
import dev.slidegate.core.Clock;
import dev.slidegate.memory.MemoryStore;

/** The store stack closes what it owns, newest first, and one failure does not keep the rest open. */
class StoreStackTest {

    @Test
    void closesEverythingItOwnsInReverseOrder() {
        List<String> closed = new ArrayList<>();
        StoreStack stack = stack(Optional.empty(), List.of(
                () -> closed.add("redis store"),
                () -> {
                    closed.add("registry");
                    throw new IllegalStateException("Redis is gone");
                },
                () -> closed.add("metrics")));
        stack.close();
        assertEquals(List.of("metrics", "registry", "redis store"), closed);
        assertFalse(stack.shared());
    }

    @Test
    void aStackWithABreakerIsShared() {
        StoreStack stack = stack(Optional.of(new Breaker("Redis", 3, 1, System::nanoTime)), List.of());
        assertTrue(stack.shared());
    }

    private static StoreStack stack(Optional<Breaker> breaker, List<AutoCloseable> owned) {
        MemoryStore store = new MemoryStore(Clock.system(), 10);
        return new StoreStack(store, breaker, Optional.empty(), owned, new dev.slidegate.core.LocalOverrideSource(),
                store, StoreStack.WriteProbe.NONE, Clock.system(), Optional.empty());
    }
}
