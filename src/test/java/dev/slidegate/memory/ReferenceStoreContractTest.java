package dev.slidegate.memory;

import dev.slidegate.core.LimiterStore;

/** The shared scenarios against the naive reference: proves the scenarios themselves say what the definitions say. */
class ReferenceStoreContractTest extends SettableClockContract {

    private final ReferenceStore store = new ReferenceStore(clock);

    @Override
    protected LimiterStore store() {
        return store;
    }
}
