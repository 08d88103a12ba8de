package dev.slidegate.entry;

import java.util.concurrent.CompletableFuture;

import org.jboss.resteasy.reactive.server.ServerRequestFilter;
import org.jboss.resteasy.reactive.server.spi.ResteasyReactiveContainerRequestContext;

import dev.slidegate.config.SlidegateConfig;
import dev.slidegate.engine.Decider;
import dev.slidegate.engine.Outcome;
import dev.slidegate.http.ProblemMappers;
import io.quarkus.runtime.BlockingOperationControl;
import io.vertx.ext.web.RoutingContext;

/**
 * For a REST endpoint behind a path policy that may hold its calls: the router admitted the call at once or released it
 * on time, but a blocking endpoint starts when a worker thread takes it up, which may come later than the late tolerance
 * (every worker busy, the CPU starved). This request filter runs on that thread, just before the endpoint: a call taken
 * up too late is decided again there ({@link Decider#late}), never run on its old permit beside the calls admitted
 * after it. (Annotated endpoints are checked by the interceptor itself.)
 */
public class LateStarts {

    private static final String KEY = LateStarts.class.getName();

    /**
     * After every other request filter: as near the endpoint as a filter gets, and never ahead of a service's own
     * non-blocking filters (Quarkus REST runs those before any filter that may run on a worker thread).
     */
    private static final int LAST = Integer.MAX_VALUE - 100;

    private final Decider decider;
    private final ProblemMappers problems;
    private final boolean enabled;

    LateStarts(SlidegateConfig config, Decider decider, ProblemMappers problems) {
        this.decider = decider;
        this.problems = problems;
        this.enabled = config.enabled();
    }

    /**
     * Remembers that the path policies of {@code rc} admitted it for a permit whose lateness the endpoint's thread checks
     * ({@link Outcome.Admitted#released}).
     */
    static void admitted(RoutingContext rc, Outcome o) {
        if (o instanceof Outcome.Admitted a && a.released() != null) {
            rc.put(KEY, a);
        }
    }

    /**
     * On the endpoint's thread: nothing for most requests; a call admitted ahead of it and taken up too late is decided
     * again, and may wait for a new permit: on this worker thread, or, on an event loop, with the request suspended.
     */
    @ServerRequestFilter(priority = LAST)
    public void startOnTime(RoutingContext rc, ResteasyReactiveContainerRequestContext request) {
        if (!enabled || rc == null) {
            return;
        }
        Outcome.Admitted admitted = rc.get(KEY);
        if (admitted == null) {
            return;
        }
        rc.remove(KEY);
        if (!decider.late(admitted)) {
            return;
        }
        HttpOutcomes.forget(admitted, rc);
        if (BlockingOperationControl.isBlockingAllowed()) {
            apply(decider.startingNow(admitted), rc, request, false);
            return;
        }
        CompletableFuture<Outcome> again = decider.again(admitted).toCompletableFuture();
        if (again.isDone()) {
            apply(again.join(), rc, request, false);
            return;
        }
        request.suspend();
        again.whenComplete((o, error) -> {
            if (error != null) { // the outcome never fails; should it, the request fails as a filter's would
                request.resume(error);
            } else {
                apply(o, rc, request, true);
            }
        });
    }

    private void apply(Outcome o, RoutingContext rc, ResteasyReactiveContainerRequestContext request, boolean suspended) {
        HttpOutcomes.record(o, rc);
        if (!o.admitted()) {
            HttpOutcomes.abort(problems, request, o); // resumes a suspended request with the answer
            return;
        }
        HttpOutcomes.endWithResponse(o, rc);
        if (suspended) {
            request.resume();
        }
    }
}
