package dev.slidegate.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Singleton;

import dev.slidegate.api.Policy;
import dev.slidegate.config.PolicyCatalog;
import dev.slidegate.config.PolicyRegistry;
import dev.slidegate.config.StoreStack;
import dev.slidegate.core.Clock;
import dev.slidegate.core.StoreInspection;

/**
 * What a service's own {@code @QuarkusTest}s need of Slidegate: each test starts with empty windows ({@link #reset()}),
 * and time moves when the test says ({@link #advance}, with {@link TestClock} selected). Inject it into a test class;
 * a service that injects it nowhere else carries none of it into production (an unused bean is removed).
 *
 * <pre>
 * &#64;Inject
 * SlidegateTestKit slidegate;
 *
 * &#64;BeforeEach
 * void emptyWindows() {
 *     slidegate.reset();
 * }
 * </pre>
 */
@Singleton
public class SlidegateTestKit {

    private static final int PAGE = 1000;

    private final StoreStack stack;
    private final PolicyCatalog catalog;
    private final Clock clock;

    SlidegateTestKit(StoreStack stack, PolicyCatalog catalog, Clock clock) {
        this.stack = stack;
        this.catalog = catalog;
        this.clock = clock;
    }

    /**
     * Empties the windows of every policy and plan of the service, in process or on Redis, as the admin's reset of each
     * key does: the key's windows, its leases and what this instance remembered of it (refusals, a fail mode's local
     * window). Returns when the store has done it (at most 30 s).
     *
     * @throws IllegalStateException when the store cannot do it in that time, or fails
     */
    public void reset() {
        StoreInspection inspection = stack.inspection();
        List<CompletableFuture<Void>> resets = new ArrayList<>();
        for (PolicyRegistry.Resolved r : catalog.policies().values()) {
            List<Policy> policies = new ArrayList<>(r.plans().values());
            policies.add(r.policy());
            for (Policy p : policies) {
                String cursor = "";
                do {
                    StoreInspection.KeyPage page = join(inspection.keys(p, cursor, PAGE).toCompletableFuture());
                    page.keys().forEach(key -> resets.add(inspection.reset(p, key).toCompletableFuture()));
                    cursor = page.next();
                } while (cursor != null && !cursor.isEmpty());
            }
        }
        join(CompletableFuture.allOf(resets.toArray(CompletableFuture[]::new)));
    }

    /**
     * Moves Slidegate's clock forward by {@code d}: windows refill (in process, and on Redis, whose scripts then read the
     * server's time as far ahead), waits and holds end as if {@code d} had passed.
     *
     * @throws IllegalStateException when the service's tests did not select {@link TestClock}
     */
    public void advance(Duration d) {
        if (!(clock instanceof TestClock)) {
            throw new IllegalStateException("Slidegate's clock is the system's: select the test clock in the test "
                    + "configuration, %test.quarkus.arc.selected-alternatives=dev.slidegate.testkit.TestClock");
        }
        TestClock.advance(d);
    }

    private static <T> T join(CompletableFuture<T> f) {
        try {
            return f.get(30, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("Slidegate's store did not empty the windows within 30 s", e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException("Slidegate's store could not empty the windows: " + e.getCause().getMessage(),
                    e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while emptying Slidegate's windows", e);
        }
    }
}
