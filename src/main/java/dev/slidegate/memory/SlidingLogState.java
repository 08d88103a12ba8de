package dev.slidegate.memory;

import dev.slidegate.api.Policy;

/**
 * The exact sliding log of one key: the instants of the most recent permits in a ring buffer, shared
 * by all limits of the policy.
 *
 * <p>
 * A permit recorded at microsecond tick t counts through tick t + W and is free from t + W + 1:
 * the clock truncates to whole microseconds, so a permit read at tick t was really granted somewhere
 * in [t, t + 1), and only from tick t + W + 1 on is every instant surely more than W after it. (With
 * "free at t + W", two grants at ticks t and t + W can be less than W apart in real time, and a
 * caller hammering the key lands on exactly that tick: 101-104 provable grants in one window of
 * 100/1 s.) A call of cost c passes limit N/W iff fewer than N - c + 1 recorded permits lie in
 * [now - W, now], i.e. iff the (N - c + 1)-th most recent entry is free by now. That is one array read
 * per limit, and it needs only the newest max(N) entries, so the ring never grows past the largest N.
 * It starts small and doubles as a key gets busy; in steady state a decision allocates nothing here.
 *
 * <p>
 * Every limit reads the same instants, so a limit that starts counting needs no carry: it reads them.
 * What the log keeps is what its slots need: the newest max(N) instants of the last max(W), over the
 * limits in force and those kept from before. Each charge first forgets instants older than max(W),
 * and keeps at most max(N).
 */
final class SlidingLogState extends KeyState {

    private static final int INITIAL_CAPACITY = 8;
    /** How many expired instants {@link #forget} drops one by one before it searches. */
    private static final int TRIM_STEPS = 64;
    private int maxPermits;
    private long maxWindow;
    private long[] ring;
    private int head; // next write position
    private int size;
    /** The oldest instant counted, {@code recent(size)} while {@code size > 0}. */
    private long oldest;

    SlidingLogState(Policy policy, Slots slots) {
        super(policy, slots);
        this.maxPermits = policy.maxPermits();
        this.maxWindow = policy.maxWindowMicros();
        this.ring = new long[Math.min(INITIAL_CAPACITY, maxPermits)];
    }

    /**
     * The instants stay as they are; the next decision and charge trim to the new slots. Unless none counts in any slot
     * at {@code now} any more (all older than the longest window counted so far): then they count nowhere, in a longer
     * window that comes now either (docs/strategies.md, "When limits change"), and are dropped.
     */
    @Override
    protected void rebuild(int[] from, int[] np, long[] nw, long carry, long now) {
        if (idle(now)) {
            size = 0;
        }
        maxPermits = 0;
        maxWindow = 0;
        for (int s = 0; s < np.length; s++) {
            maxPermits = Math.max(maxPermits, np[s]);
            maxWindow = Math.max(maxWindow, nw[s]);
        }
    }

    /** A limit reads the instants, whatever it counted before: the same N and W count the same. */
    @Override
    protected boolean counts(int j, dev.slidegate.api.Limit l) {
        return windows[j] == l.windowMicros() && permits[j] == l.permits();
    }

    /** The k-th most recent entry, 1-based; requires 1 ≤ k ≤ size. */
    private long recent(int k) {
        int idx = head - k;
        return ring[idx < 0 ? idx + ring.length : idx];
    }

    /** The first tick at which a permit recorded at tick {@code t} no longer counts in a window of {@code w}. */
    private static long freeAt(long t, long w) {
        return t + w + 1;
    }

    /** How many of the newest {@code at most} entries still count at {@code now} in a window of {@code w}. */
    private int counted(int atMost, long w, long now) {
        // binary search: entries get older as k grows
        int lo = 0;
        int hi = Math.min(size, atMost);
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (freeAt(recent(mid), w) > now) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    @Override
    protected long used(int j, long now) {
        return counted(permits[j], windows[j], now);
    }

    @Override
    protected long waitFor(int i, long now, int cost) {
        int k = permits[i] - cost + 1;
        return size < k ? 0 : freeAt(recent(k), windows[i]) - now;
    }

    @Override
    protected void charge(long now, int cost) {
        if (size + cost > ring.length && ring.length < maxPermits) {
            grow(Math.min(maxPermits, Math.max(ring.length * 2, size + cost)));
        }
        for (int j = 0; j < cost; j++) {
            ring[head] = now;
            head = head + 1 == ring.length ? 0 : head + 1;
        }
        // past capacity the oldest entries were overwritten; past the largest N of the slots they never count
        int kept = Math.min(size + cost, Math.min(ring.length, maxPermits));
        if (size == 0) {
            oldest = now;
        }
        if (kept < size + cost) {
            oldest = recent(kept);
        }
        size = kept;
    }

    /**
     * Forgets the instants no slot counts any more: older than the longest window. They are the oldest, and a busy key
     * loses one or two per charge: the oldest is known without reading the ring ({@link #oldest}, which on a busy key
     * lies far from the newest: a cache miss per call), expired ones are dropped one by one, and only a longer run is
     * found by binary search (which, over a ring of millions, reads far-apart entries).
     */
    @Override
    protected void forget(long now) {
        if (size == 0 || freeAt(oldest, maxWindow) > now) {
            return;
        }
        if (freeAt(recent(1), maxWindow) <= now) {
            size = 0;
            return;
        }
        int steps = 0;
        do {
            size--; // the newest still counts, so size stays at least 1
        } while (++steps < TRIM_STEPS && freeAt(recent(size), maxWindow) <= now);
        if (freeAt(recent(size), maxWindow) <= now) {
            size = counted(size, maxWindow, now);
        }
        oldest = recent(size);
    }

    private void grow(int capacity) {
        long[] bigger = new long[capacity];
        for (int k = size; k >= 1; k--) {
            bigger[size - k] = recent(k);
        }
        ring = bigger;
        head = size;
    }

    /**
     * Decides behind the gate: the same decision as under the monitor, for one compare-and-swap where the monitor takes
     * two (entering and leaving). The monitor's methods close the gate first ({@link #absorb}); its decisions on a hot key
     * open it again ({@link #afterLocked}).
     */
    @Override
    protected int decideAtOnce(Policy p, long now, int cost, long maxWait, dev.slidegate.core.DecisionBuffer out) {
        if (!enterGate()) {
            return -1;
        }
        try {
            return decideBehindGate(p, now, cost, maxWait, out);
        } finally {
            openGate();
        }
    }

    @Override
    protected void absorb() {
        closeGate();
    }

    /** The ring is read where calls behind the gate write it: closed too. */
    @Override
    protected void refresh() {
        closeGate();
    }

    /**
     * Opens the gate when the key is hot (decided again within {@link KeyState#HOT_MICROS}): a key of many callers, each
     * decided now and then, stays on the monitor as before (and is never kept at hand by the store).
     */
    @Override
    protected void afterLocked(long seen) {
        if (!retired && seen != Long.MIN_VALUE && lastMicros - seen <= HOT_MICROS) {
            openGate();
        }
    }

    /** Not reached: {@link dev.slidegate.core.DecisionStore#settlement} refuses a sliding log first. */
    @Override
    protected void settleSlots(long now, long at, long delta) {
        throw new UnsupportedOperationException("a sliding log does not settle");
    }

    /**
     * Removes up to {@code count} entries recorded at {@code at}: the instants are in order (a call is placed no earlier
     * than the last reservation), so they lie together; the newer entries move down over them.
     */
    @Override
    protected void refundSlots(long at, int count) {
        int lo = 1; // the newest entry not newer than "at": entries get older as k grows
        int hi = size + 1;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (recent(mid) > at) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        int removed = 0;
        while (lo + removed <= size && removed < count && recent(lo + removed) == at) {
            removed++;
        }
        if (removed == 0) {
            return;
        }
        for (int k = lo - 1; k >= 1; k--) {
            int to = head - k - removed;
            ring[to < 0 ? to + ring.length : to] = recent(k);
        }
        head = head - removed < 0 ? head - removed + ring.length : head - removed;
        size -= removed;
        if (size > 0) {
            oldest = recent(size);
        }
    }

    @Override
    protected void standing(int i, long now) {
        // the entries not yet free among the newest permits[i] (more never matter); when even the oldest one kept still
        // counts in this window, that is all of them up to permits[i], and no search is needed
        int used = size > 0 && freeAt(oldest, windows[i]) > now ? Math.min(size, permits[i])
                : counted(permits[i], windows[i], now);
        left = permits[i] - used;
        resetIn = used == 0 ? 0 : freeAt(recent(used), windows[i]) - now;
    }

    @Override
    protected boolean idle(long now) {
        return size == 0 || freeAt(recent(1), maxWindow) <= now;
    }
}
