package dev.slidegate.health;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;

/**
 * Liveness: the process answers. Deliberately independent of Redis: a Redis outage must not get
 * every instance restarted (readiness and the fail modes handle it). A bean only where the service has
 * {@code quarkus-smallrye-health}, as {@link StoreHealth}.
 */
@Liveness
public class ServiceLiveness implements HealthCheck {

    @Override
    public HealthCheckResponse call() {
        return HealthCheckResponse.up("Slidegate");
    }
}
