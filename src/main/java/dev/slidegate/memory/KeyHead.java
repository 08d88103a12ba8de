package dev.slidegate.memory;

import java.util.concurrent.atomic.AtomicLong;

import dev.slidegate.api.Policy;

/**
 * The fields of a key's state that a decision reads before anything else, without the monitor: the policy counted
 * under, the instant until which calls are surely refused, and the open cell. The JVM lays out a superclass's fields
 * first, right after the object header, so these three share a cache line; in {@link KeyState} itself they came after
 * ten {@code long}s, and a refusal over many cold keys paid a cache miss for each of them (issue 37).
 */
abstract sealed class KeyHead permits KeyState {

    /** The policy counted under; read without the lock by the refusal fast path, hence volatile. */
    protected volatile Policy policy;
    /**
     * Until when (exclusive) every call is surely refused: set under the lock after a refusal of cost 1
     * (no call can pass before the refusing limits have room for one permit, and nothing is charged
     * meanwhile), read without the lock, so a caller over its limit is refused without taking the
     * monitor. Never set for count-rejected policies, whose refusals are charged.
     */
    volatile long refusedUntil = Long.MIN_VALUE;
    /** The open cell of a strategy that decides without the monitor ({@link KeyState#decideAtOnce}), or null. */
    volatile AtomicLong cell;

    KeyHead(Policy policy) {
        this.policy = policy;
    }
}
