package dev.slidegate.http;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import org.jboss.resteasy.reactive.RestStreamElementType;

import dev.slidegate.api.RateLimited;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;

/**
 * Test endpoints limited to 2 calls in flight per tenant (issue 40), one per way a call ends. Each call counts itself
 * in while it runs ({@link #RUNNING}, by gate) and waits for its gate, which the test opens: the protected resource
 * itself says how many of its calls overlap.
 */
@Path("/test/in-flight")
public class InFlightResource {

    /** Calls running now, by gate name: entered and not yet done. */
    static final Map<String, AtomicInteger> RUNNING = new ConcurrentHashMap<>();
    /** The most calls of a gate that ran at once. */
    static final Map<String, AtomicInteger> MOST = new ConcurrentHashMap<>();
    private static final Map<String, CompletableFuture<Void>> GATES = new ConcurrentHashMap<>();

    static CompletableFuture<Void> gate(String name) {
        return GATES.computeIfAbsent(name, n -> new CompletableFuture<>());
    }

    static int running(String gate) {
        return RUNNING.computeIfAbsent(gate, g -> new AtomicInteger()).get();
    }

    private static void enter(String gate) {
        int now = RUNNING.computeIfAbsent(gate, g -> new AtomicInteger()).incrementAndGet();
        MOST.computeIfAbsent(gate, g -> new AtomicInteger()).accumulateAndGet(now, Math::max);
    }

    private static void exit(String gate) {
        RUNNING.get(gate).decrementAndGet();
    }

    /** Blocking: the call runs on a worker until its gate opens, and answers. */
    @GET
    @Path("blocking/{gate}")
    @Blocking
    @RateLimited(value = "in-flight", maxInFlight = 2, key = "header:X-Tenant")
    public String blocking(@PathParam("gate") String gate) {
        enter(gate);
        try {
            gate(gate).join();
            return "done";
        } finally {
            exit(gate);
        }
    }

    /** Blocking, and fails once its gate opens: a 500. */
    @GET
    @Path("fails/{gate}")
    @Blocking
    @RateLimited(value = "in-flight", maxInFlight = 2, key = "header:X-Tenant")
    public String fails(@PathParam("gate") String gate) {
        enter(gate);
        try {
            gate(gate).join();
            throw new jakarta.ws.rs.InternalServerErrorException("the export broke"); // (a 500 the server does not log)
        } finally {
            exit(gate);
        }
    }

    /** A Uni that completes when its gate opens (no thread waits). */
    @GET
    @Path("uni/{gate}")
    @RateLimited(value = "in-flight", maxInFlight = 2, key = "header:X-Tenant")
    public Uni<String> uni(@PathParam("gate") String gate) {
        enter(gate);
        return Uni.createFrom().completionStage(gate(gate)).map(v -> "done").onTermination().invoke(() -> exit(gate));
    }

    /** One at a time per tenant, a call waiting up to 3 s for the slot; every call counts itself in "waits" too. */
    @GET
    @Path("waits/{gate}")
    @RateLimited(value = "in-flight-waits", maxInFlight = 1, maxWait = "3s", key = "header:X-Tenant")
    public Uni<String> waits(@PathParam("gate") String gate) {
        enter(gate);
        enter("waits");
        return Uni.createFrom().completionStage(gate(gate)).map(v -> "done").onTermination().invoke(() -> {
            exit("waits");
            exit(gate);
        });
    }

    /** 1 at a time per tenant, in dry run: every call runs, those beyond it logged as refusals would be. */
    @GET
    @Path("dry/{gate}")
    @RateLimited(value = "in-flight-dry", maxInFlight = 1, key = "header:X-Tenant", dryRun = RateLimited.Toggle.ON)
    public Uni<String> dry(@PathParam("gate") String gate) {
        enter(gate);
        return Uni.createFrom().completionStage(gate(gate)).map(v -> "done").onTermination().invoke(() -> exit(gate));
    }

    /** A stream: one element at once, the last when its gate opens. */
    @GET
    @Path("stream/{gate}")
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @RestStreamElementType(MediaType.TEXT_PLAIN)
    @RateLimited(value = "in-flight", maxInFlight = 2, key = "header:X-Tenant")
    public Multi<String> stream(@PathParam("gate") String gate) {
        enter(gate);
        return Multi.createBy().concatenating().streams(Multi.createFrom().item("first"),
                Uni.createFrom().completionStage(gate(gate)).map(v -> "last").toMulti())
                .onTermination().invoke(() -> exit(gate));
    }

    /** A CompletionStage that completes when its gate opens. */
    @GET
    @Path("stage/{gate}")
    @RateLimited(value = "in-flight", maxInFlight = 2, key = "header:X-Tenant")
    public CompletionStage<String> stage(@PathParam("gate") String gate) {
        enter(gate);
        return gate(gate).thenApply(v -> "done").whenComplete((r, e) -> exit(gate));
    }

    /** A concurrency policy (1 at once per tenant) beside a rate policy (2 an hour per tenant): all or nothing. */
    @GET
    @Path("both/{gate}")
    @RateLimited(value = "in-flight-rate", limits = "2/1h", key = "header:X-Tenant")
    @RateLimited(value = "in-flight-one", maxInFlight = 1, key = "header:X-Tenant")
    public Uni<String> both(@PathParam("gate") String gate) {
        enter(gate);
        return Uni.createFrom().completionStage(gate(gate)).map(v -> "done").onTermination().invoke(() -> exit(gate));
    }

    /** Limited by configuration alone (slidegate.policies.in-flight-path.*: 1 in flight per tenant). */
    @GET
    @Path("path/{gate}")
    public Uni<String> path(@PathParam("gate") String gate) {
        enter(gate);
        return Uni.createFrom().completionStage(gate(gate)).map(v -> "done").onTermination().invoke(() -> exit(gate));
    }

    /** A bean method, not an endpoint: the interceptor's path (its lease ends with its Uni, or when it is cancelled). */
    @ApplicationScoped
    public static class Work {

        @RateLimited(value = "in-flight-bean", maxInFlight = 1, key = "global")
        public Uni<String> run(String gate) {
            enter(gate);
            return Uni.createFrom().completionStage(gate(gate)).map(v -> "done").onTermination().invoke(() -> exit(gate));
        }
    }
}
