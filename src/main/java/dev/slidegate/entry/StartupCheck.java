package dev.slidegate.entry;

import jakarta.enterprise.event.Observes;

import org.jboss.logging.Logger;

import dev.slidegate.api.PlanResolver;
import dev.slidegate.api.RateLimited;
import dev.slidegate.config.PolicyCatalog;
import dev.slidegate.core.DecisionStore;
import dev.slidegate.http.ClientAddress;
import io.quarkus.runtime.StartupEvent;

/**
 * At start-up, binds the policy of every {@link RateLimited} method of every bean, as the build found
 * them ({@link RateLimitedSites}), into the {@link PolicyCatalog}, so that a bad limit, strategy, key source or policy name
 * stops the service before it takes traffic, with one sentence naming the property or {@code Class#method}, on
 * the JVM and in a native executable alike, without reflection. It also creates the store (which logs which
 * store is active and why), checks it offers what every policy needs ({@link dev.slidegate.config.StoreCapabilities}), and
 * creates the client-address resolver (which checks the trusted proxies).
 */
class StartupCheck {

    private static final Logger LOG = Logger.getLogger("dev.slidegate");

    void onStart(@Observes StartupEvent event, PolicyCatalog catalog, MethodPolicies policies, DecisionStore store,
            ClientAddress clientAddress, PlanResolver plans, PathLimiter pathLimiter) {
        // the catalog binds what the build found (RateLimitedSites, through the one binder): no reflection over the
        // beans' methods, which cost a quarter of a second of the JVM's start-up, and which a native executable can do
        // only for registered classes
        catalog.warnings().forEach(w -> LOG.warn("Slidegate: " + w));
        dev.slidegate.config.StoreCapabilities.check(catalog, store); // a policy needs what the store offers
        LOG.debugf("Slidegate: policies %s, store %s", catalog.policies().keySet(), store.name());
    }
}
