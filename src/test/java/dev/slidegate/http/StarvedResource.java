package dev.slidegate.http;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.QueryParam;

import dev.slidegate.api.RateLimited;

/**
 * Blocking endpoints for {@link StarvedWorkersTest}: one whose calls wait for their permits, stamping the instant its body
 * runs, and one that keeps a worker thread busy until an instant the test gives.
 */
@Path("/test/starved")
public class StarvedResource {

    static final ConcurrentLinkedQueue<WaitResource.Run> RUNS = new ConcurrentLinkedQueue<>();
    static final ConcurrentLinkedQueue<WaitResource.Run> PATH_RUNS = new ConcurrentLinkedQueue<>();
    static final ConcurrentLinkedQueue<WaitResource.Run> FIRST_RUNS = new ConcurrentLinkedQueue<>();
    static final ConcurrentLinkedQueue<WaitResource.Run> FIRST_PATH_RUNS = new ConcurrentLinkedQueue<>();
    /** Calls of {@link #busy} that have started. */
    static final java.util.concurrent.atomic.AtomicInteger BUSY = new java.util.concurrent.atomic.AtomicInteger();

    /**
     * One call per 500 ms for everyone together; a call may wait up to 3 s for its permit (a call decided again waits for the
     * third).
     */
    @GET
    @Path("paced")
    @RateLimited(value = "starved", limits = "1/500ms", key = "global", maxWait = "3s")
    public String paced(@HeaderParam("X-Request") String request) {
        RUNS.add(new WaitResource.Run(request, System.nanoTime()));
        return "ok";
    }

    /** No annotation: the policy {@code starved-path} is attached to this path by configuration (the same limits). */
    @GET
    @Path("path")
    public String path(@HeaderParam("X-Request") String request) {
        PATH_RUNS.add(new WaitResource.Run(request, System.nanoTime()));
        return "ok";
    }

    /** As {@link #paced}, with a policy of its own: its first call is admitted at once. */
    @GET
    @Path("first")
    @RateLimited(value = "starved-first", limits = "1/500ms", key = "global", maxWait = "2s")
    public String first(@HeaderParam("X-Request") String request) {
        FIRST_RUNS.add(new WaitResource.Run(request, System.nanoTime()));
        return "ok";
    }

    /** As {@link #path}, with a policy of its own ({@code starved-first-path}): its first call is admitted at once. */
    @GET
    @Path("first-path")
    public String firstPath(@HeaderParam("X-Request") String request) {
        FIRST_PATH_RUNS.add(new WaitResource.Run(request, System.nanoTime()));
        return "ok";
    }

    /** Not limited: holds its worker thread until {@code until} ({@link System#nanoTime()} of this JVM). */
    @GET
    @Path("busy")
    public String busy(@QueryParam("until") long until) {
        BUSY.incrementAndGet();
        long left;
        while ((left = until - System.nanoTime()) > 0) {
            LockSupport.parkNanos(left);
        }
        return "done";
    }
}
