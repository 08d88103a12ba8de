package dev.slidegate.testing;

import dev.slidegate.core.DecisionStore;

/** A store that asks another for everything: a test overrides the one call it watches or delays. */
public class ForwardingStore extends dev.slidegate.core.ForwardingStore {

    public ForwardingStore(DecisionStore delegate) {
        super(delegate);
    }
}
