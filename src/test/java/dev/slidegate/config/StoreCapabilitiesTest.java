package dev.slidegate.config;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.slidegate.core.DecisionStore.Capability;
import dev.slidegate.memory.MemoryStore;
import dev.slidegate.testing.ManualClock;
import dev.slidegate.testing.TestConfigs;
import io.quarkus.runtime.configuration.ConfigurationException;

/** A store says what it offers; a policy that needs what the configured store lacks stops start-up with one sentence. */
class StoreCapabilitiesTest {

    private static final Map<String, String> POLICIES = Map.of(
            "slidegate.policies.plain.limits", "10/1m",
            "slidegate.policies.settled.limits", "100/1m", "slidegate.policies.settled.settle", "true",
            "slidegate.policies.settled.strategy", "sliding-counter",
            "slidegate.policies.quotes.limits", "10/10s", "slidegate.policies.quotes.outgoing", "true",
            "slidegate.policies.exports.max-in-flight", "2");

    /** An in-process store that offers only {@code offers}. */
    private static final class Lacking extends dev.slidegate.core.ForwardingStore {
        private final Set<Capability> offers;

        Lacking(Set<Capability> offers) {
            super(new MemoryStore(new ManualClock(), 1_000));
            this.offers = offers;
        }

        @Override
        public Set<Capability> offers() {
            return offers;
        }
    }

    private final PolicyRegistry registry = new PolicyRegistry(TestConfigs.slidegate(POLICIES));
    private final PolicyCatalog catalog = PolicyCatalog.of(registry, List.of());

    @Test
    void eachPolicyNeedsWhatItsSettingsUse() {
        assertEquals(Set.of(), StoreCapabilities.needs(catalog.get("plain")));
        assertEquals(Set.of(Capability.SETTLE), StoreCapabilities.needs(catalog.get("settled")));
        assertEquals(Set.of(Capability.UPSTREAM_HOLDS), StoreCapabilities.needs(catalog.get("quotes")));
        assertEquals(Set.of(Capability.IN_FLIGHT), StoreCapabilities.needs(catalog.get("exports")));
    }

    @Test
    void aStoreLackingWhatAPolicyNeedsStopsStartUpWithOneSentence() {
        assertDoesNotThrow(() -> StoreCapabilities.check(catalog, new Lacking(EnumSet.allOf(Capability.class))));
        assertDoesNotThrow(() -> StoreCapabilities.check(catalog, new MemoryStore(new ManualClock(), 1_000)));
        String refused = assertThrows(ConfigurationException.class,
                () -> StoreCapabilities.check(catalog, new Lacking(EnumSet.of(Capability.SETTLE, Capability.UPSTREAM_HOLDS))))
                .getMessage();
        assertEquals("Policy 'exports' needs a store that can count calls in flight (max-in-flight), and the store 'memory' "
                + "cannot: choose another slidegate.store, or drop that setting from the policy", refused);
        PolicyCatalog plainOnly = PolicyCatalog.of(new PolicyRegistry(TestConfigs.slidegate(
                Map.of("slidegate.policies.plain.limits", "10/1m"))), List.of());
        assertDoesNotThrow(() -> StoreCapabilities.check(plainOnly, new Lacking(EnumSet.noneOf(Capability.class))),
                "rates alone need no capability");
    }
}
