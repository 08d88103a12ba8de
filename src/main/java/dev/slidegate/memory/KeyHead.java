package dev.slidegate.memory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
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
    /**
     * The gate of a strategy that decides under a lighter lock than the monitor ({@link KeyState#decideAtOnce} of the
     * sliding log): {@link #GATE_CLOSED}, {@link #GATE_OPEN} or {@link #GATE_BUSY} (one call deciding behind it).
     */
    private volatile int gate;
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

    static final int GATE_CLOSED = 0;
    static final int GATE_OPEN = 1;
    static final int GATE_BUSY = 2;
    /**
     * How many times a call finding the gate busy lets other threads run before it sleeps between tries. Yielding at once,
     * rather than spinning on the gate's line, lets its holder run many calls in a row with the key's lines in its own
     * core: on one key, two threads made 55-62 M decisions a second against 33-40 spinning (and 17.4 against 10.0 full
     * decisions), interleaved in one run.
     */
    private static final int GATE_YIELDS = 64;

    private static final VarHandle GATE;

    static {
        try {
            GATE = MethodHandles.lookup().findVarHandle(KeyHead.class, "gate", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * Takes the open gate (one compare-and-swap, where the monitor takes two). While another call holds it, waits for
     * it, letting other threads run between tries, then sleeping between them (its holder may have lost its core). A
     * call that went to the monitor instead would close the gate under the next one, and two threads deciding one key
     * then queued for the monitor, parked and woken in turn: 5 M decisions a second against 35-40 on the gate.
     *
     * @return false when the gate is closed: the monitor decides
     */
    final boolean enterGate() {
        for (int spins = 0;; spins++) {
            int g = gate;
            if (g == GATE_OPEN && GATE.compareAndSet(this, GATE_OPEN, GATE_BUSY)) {
                return true;
            }
            if (g == GATE_CLOSED) {
                return false;
            }
            if (spins < GATE_YIELDS) {
                Thread.yield();
            } else {
                java.util.concurrent.locks.LockSupport.parkNanos(50_000); // its holder lost its core: wait without burning one
            }
        }
    }

    /**
     * Opens the gate: under the monitor, for calls to decide without it; behind the gate, to give it back. What was written
     * before is seen by whoever takes it next.
     */
    final void openGate() {
        GATE.setRelease(this, GATE_OPEN);
    }

    /**
     * Under the monitor, before the state is read or changed: closes the gate for good, waiting for the call behind it
     * to end (what it wrote is then seen here). Callers that find it closed take the monitor.
     */
    final void closeGate() {
        for (int spins = 0;; spins++) {
            int g = gate;
            if (g == GATE_CLOSED || g == GATE_OPEN && GATE.compareAndSet(this, GATE_OPEN, GATE_CLOSED)) {
                return;
            }
            if (spins % 64 == 63) {
                Thread.yield(); // its holder may have lost its core
            } else {
                Thread.onSpinWait();
            }
        }
    }

    /** Whether calls decide without the monitor now: an open cell or gate (the store keeps such a key at hand). */
    final boolean open() {
        return cell != null || gate != GATE_CLOSED;
    }
}
