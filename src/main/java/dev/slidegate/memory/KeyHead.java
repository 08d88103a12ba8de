package dev.slidegate.memory;

import java.util.concurrent.atomic.AtomicLong;

import dev.slidegate.api.Policy;

/**
 * The fields of a key's state that every decision reads: first, without the monitor, the policy counted under, the
 * instant until which calls are surely refused, and the open cell; then, under the monitor, the newest instant seen,
 * the last charge, the number of limits in force, whether the state is retired, each limit's N and the array of the
 * strategy's numbers.
 * The JVM lays out a superclass's fields first, right after the object header, so these fill the object's first 64
 * bytes (offsets 12 to 63 on HotSpot with compressed references, checked with {@code Unsafe.objectFieldOffset}): one
 * cache line, or two adjacent ones. In {@link KeyState} itself they were spread among ten {@code long}s over three
 * lines, and a decision over many cold keys paid a cache miss for each (issue 37).
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
    /** How many slots are the limits in force. */
    protected int n;
    /** The newest "now" this key has seen: time never steps backwards for a key. */
    protected long lastMicros = Long.MIN_VALUE;
    /**
     * The latest instant anything was charged at: later than {@link #lastMicros} while a reserved call waits. No call is
     * placed before it, so charges are recorded in order and each strategy decides at or after its newest charge.
     */
    long lastCharge = Long.MIN_VALUE;
    boolean retired;
    /** N of every slot: {@code [0, n)} the limits in force, the rest kept from before. */
    protected int[] permits;
    /** The strategy's numbers, in the layout each strategy documents (null for one that keeps none here). */
    protected long[] numbers;

    KeyHead(Policy policy) {
        this.policy = policy;
    }
}
