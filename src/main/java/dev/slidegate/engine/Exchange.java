package dev.slidegate.engine;

import java.util.function.Consumer;

import dev.slidegate.api.RequestView;
import dev.slidegate.api.Usage;

/**
 * The HTTP exchange a call belongs to, as the engine sees it (issue 57): the request its resolvers read
 * ({@link RequestView}), and of the response only what waits, leases and settlements need. The entry points make it from
 * their framework's request (`entry/Exchanges`); nothing below them sees that framework.
 */
public interface Exchange extends RequestView {

    /** Whether the client went away (the connection closed before the answer was done). */
    boolean clientGone();

    /** Whether the answer is done, or can no longer be (ended, or its connection closed). */
    boolean answered();

    /**
     * Runs {@code then} once the answer is done, with whether it failed (its end failed, or its status is 5xx).
     *
     * @throws IllegalStateException when the answer is done already
     */
    void whenAnswered(Consumer<Boolean> then);

    /**
     * The status of the answer once it was written in full, else {@link dev.slidegate.core.CountWhen#UNKNOWN} (not done
     * yet, or its connection closed first).
     */
    int answerStatus();

    /** The value of the answer's header {@code name} as set so far, or {@code null}. */
    String answerHeader(String name);

    /** The request's {@link Usage}, made and kept with the request when nobody asked for it yet. */
    Usage usage();

    /** The request's {@link Usage} when someone asked for it already, else {@code null}. */
    Usage usageIfAny();

    /**
     * Says which caller key {@code decision} counted, for a policy whose answers name the caller's partition (the
     * {@code pk} of the RateLimit fields; {@code partition-key}).
     */
    void partition(dev.slidegate.api.Decision decision, String key);
}
