package dev.slidegate.memory;

import dev.slidegate.core.LimiterStore;

/** The shared scenarios against the in-process store. */
class MemoryStoreContractTest extends SettableClockContract {

    private final MemoryStore store = new MemoryStore(clock, 10_000);

    @Override
    protected LimiterStore store() {
        return store;
    }
}
