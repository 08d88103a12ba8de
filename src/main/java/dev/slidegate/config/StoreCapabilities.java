package dev.slidegate.config;

import java.util.EnumSet;
import java.util.Set;

import dev.slidegate.api.Policy;
import dev.slidegate.core.DecisionStore;
import dev.slidegate.core.DecisionStore.Capability;
import io.quarkus.runtime.configuration.ConfigurationException;

/**
 * What each policy needs of the store beyond rates, checked against what the configured store offers
 * ({@link DecisionStore#offers}) before the service takes traffic (issue 57): a policy that needs a capability the store
 * lacks stops start-up with one sentence naming the policy, the store and what it cannot do.
 */
public final class StoreCapabilities {

    private StoreCapabilities() {
    }

    /** What {@code r} needs of the store beyond rates. */
    public static Set<Capability> needs(PolicyRegistry.Resolved r) {
        Set<Capability> needs = EnumSet.noneOf(Capability.class);
        if (r.settlement().settles()) {
            needs.add(Capability.SETTLE);
        }
        if (r.outgoing()) {
            needs.add(Capability.UPSTREAM_HOLDS);
        }
        if (r.policy().inFlight() || r.plans().values().stream().anyMatch(Policy::inFlight)) {
            needs.add(Capability.IN_FLIGHT);
        }
        return needs;
    }

    /**
     * @throws ConfigurationException naming the first policy that needs what {@code store} does not offer
     */
    public static void check(PolicyCatalog catalog, DecisionStore store) {
        Set<Capability> offers = store.offers();
        for (PolicyRegistry.Resolved r : catalog.policies().values()) {
            for (Capability c : needs(r)) {
                if (!offers.contains(c)) {
                    throw new ConfigurationException("Policy '" + r.name() + "' needs a store that can " + c.does
                            + ", and the store '" + store.name() + "' cannot: choose another slidegate.store, or drop that "
                            + "setting from the policy");
                }
            }
        }
    }
}
