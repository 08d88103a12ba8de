package dev.slidegate.http;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.Path;

import dev.slidegate.api.RateLimited;
import io.smallrye.mutiny.Uni;

/**
 * Test endpoints whose calls wait for their permits (issue 38). Each records the instant its body runs (the protected
 * resource's own clock, {@link System#nanoTime()}) with the caller's request number, so a test judges the bound where
 * the endpoint sees it.
 */
@Path("/test/wait")
public class WaitResource {

    /** One run of an endpoint: the request number the caller sent, and when the body ran. */
    public record Run(String request, long nanos) {
    }

    static final ConcurrentLinkedQueue<Run> PACED = new ConcurrentLinkedQueue<>();
    static final AtomicInteger FAR_CALLS = new AtomicInteger();
    static final AtomicInteger GONE_CALLS = new AtomicInteger();
    static final ConcurrentLinkedQueue<Run> BEAN = new ConcurrentLinkedQueue<>();
    static final ConcurrentLinkedQueue<Run> PATH = new ConcurrentLinkedQueue<>();

    @Inject
    Paced bean;

    /** 5 per 500 ms for everyone together, and a call may wait up to 1 s (two windows) for its permit. */
    @GET
    @Path("paced")
    @RateLimited(value = "wait-paced", limits = "5/500ms", key = "global", maxWait = "1s")
    public String paced(@HeaderParam("X-Request") String request) {
        PACED.add(new Run(request, System.nanoTime()));
        return "ok";
    }

    /** One per 10 s, and a call may wait 5 s: the second call's permit is 10 s away, so it is refused at once. */
    @GET
    @Path("far")
    @RateLimited(value = "wait-far", limits = "1/10s", key = "global", maxWait = "5s")
    public String far() {
        FAR_CALLS.incrementAndGet();
        return "far";
    }

    /** One per 2 s, waiting up to 3 s: for a client that goes away while it waits. */
    @GET
    @Path("gone")
    @RateLimited(value = "wait-gone", limits = "1/2s", key = "global", maxWait = "3s")
    public String gone() {
        GONE_CALLS.incrementAndGet();
        return "gone";
    }

    /** No annotation: the policy {@code wait-path} is attached to this path by configuration (1 per s, max-wait 3 s). */
    @GET
    @Path("path")
    public String path(@HeaderParam("X-Request") String request) {
        PATH.add(new Run(request, System.nanoTime()));
        return "path";
    }

    /** A bean method returning {@code Uni}, waiting in the interceptor rather than before dispatch. */
    @GET
    @Path("bean")
    public Uni<String> viaBean(@HeaderParam("X-Request") String request) {
        return bean.run(request);
    }

    /** Paced calls of a bean method (the interceptor's path). */
    @ApplicationScoped
    public static class Paced {

        @RateLimited(value = "wait-bean", limits = "2/300ms", key = "global", maxWait = "1s")
        public Uni<String> run(String request) {
            BEAN.add(new Run(request, System.nanoTime()));
            return Uni.createFrom().item("bean");
        }
    }
}
