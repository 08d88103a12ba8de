package dev.slidegate.health;

import java.time.Duration;
import java.util.stream.Collectors;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

import dev.slidegate.api.FailMode;
import dev.slidegate.config.PolicyCatalog;
import dev.slidegate.config.SlidegateConfig;
import dev.slidegate.config.StoreStack;
import dev.slidegate.core.Breaker;
import dev.slidegate.core.Secrets;
import dev.slidegate.core.WriteRefusals;

/**
 * Readiness of the rate-limit store. The memory store is always ready. The Redis store is asked to
 * write (a short-lived key, {@code slidegate:ready}), since every decision writes and a Redis that answers
 * pings but refuses writes (a read-only replica, out of memory, a failed snapshot, a wrong password)
 * decides nothing: if the write succeeds, ready; if not, the instance is <em>not ready</em> when the default fail mode
 * ({@code slidegate.fail-mode}) is {@code closed} (it would refuse every limited call with 503), and
 * otherwise ready but degraded (policies decide by their fail mode), which the data says.
 * <p>
 * A bean only where the service has {@code quarkus-smallrye-health} (which makes every {@code @Readiness} class one):
 * no scope annotation here, so a service without a health endpoint gets no check.
 */
@Readiness
public class StoreHealth implements HealthCheck {

    private final StoreStack stack;
    private final SlidegateConfig config;
    private final PolicyCatalog catalog;

    StoreHealth(StoreStack stack, SlidegateConfig config, PolicyCatalog catalog) {
        this.stack = stack;
        this.config = config;
        this.catalog = catalog;
    }

    @Override
    public HealthCheckResponse call() {
        HealthCheckResponseBuilder r = HealthCheckResponse.named("Slidegate store").withData("store", stack.decisions().name())
                .withData("enabled", config.enabled());
        if (stack.breaker().isEmpty()) {
            return r.up().build();
        }
        Breaker breaker = stack.breaker().get();
        FailMode mode = config.failMode().orElse(FailMode.LOCAL);
        r.withData("fail-mode", mode.configName());
        String error = write();
        if (error == null) {
            return r.up().withData("redis", "up").build();
        }
        String refusal = WriteRefusals.explain(error);
        String closed = catalog.policies().values().stream().map(p -> p.policy()).filter(p -> p.failMode() == FailMode.CLOSED)
                .map(p -> p.name()).sorted().collect(Collectors.joining(","));
        r.withData("redis", refusal != null ? "refuses writes: " + refusal : "unreachable: " + Secrets.redact(error))
                .withData("breaker",
                        breaker.state() == Breaker.State.CLOSED ? "using Redis" : "skipping Redis while it recovers");
        if (!closed.isEmpty()) {
            r.withData("policies failing closed", closed);
        }
        if (mode == FailMode.CLOSED) {
            return r.down().build();
        }
        return r.up().withData("degraded", "policies decide by their fail mode until Redis answers").build();
    }

    /** {@code null} when Redis writes the probe key within the decision budget (at least 250 ms), else why not. */
    private String write() {
        Duration budget = config.redis().timeout().compareTo(Duration.ofMillis(250)) < 0 ? Duration.ofMillis(250)
                : config.redis().timeout();
        return stack.probe().write(budget);
    }
}
