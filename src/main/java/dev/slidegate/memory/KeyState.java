package dev.slidegate.memory;

import java.util.Arrays;
import java.util.List;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Limit;
import dev.slidegate.api.LimitState;
import dev.slidegate.api.Periods;
import dev.slidegate.api.Policy;
import dev.slidegate.core.DecisionBuffer;

/**
 * The windows of one (policy, key) in process. Subclasses hold the counting state of one strategy;
 * this class holds what all share: the limits counted, the monotonic guard, and retirement.
 *
 * <p>
 * All methods that touch state run under the instance's monitor. Each decision names the policy it is
 * made under. When an override changes its limits, nothing counted is dropped (docs/strategies.md,
 * "When limits change"): the limits counted are <em>slots</em>, {@code [0, n)} those of the policy in
 * force in its order, {@code [n, permits.length)} limits counted before that still hold a permit. Every
 * charge is recorded in every slot; only the limits in force decide. A limit not counted before starts
 * from the most permits any slot holds at that instant ({@link #track}); a kept limit that holds nothing
 * when a charge comes is forgotten instead of charged. A state that the store evicted is <em>retired</em>: {@link #decide} then
 * answers that it was and the store looks the key up again, so no permit is ever charged to a state
 * that is no longer in the map.
 *
 * <p>
 * A strategy may also decide without the monitor ({@link #decideAtOnce}): the token bucket, the fixed window and the
 * sliding counter (admissions only), for a policy of one limit that counts no refusals, with nothing reserved ahead,
 * keep the one number a decision needs in a <em>cell</em> that calls charge by compare-and-swap, so threads sharing a
 * key do not queue for its monitor. Every method that takes the monitor first takes the number back from the cell and
 * closes it ({@link #absorb}: a call that read the cell before then fails its compare-and-swap and takes the monitor);
 * a decision under the monitor opens a new cell when the key is hot and its state still that simple
 * ({@link #publishIfHot}). A closed cell never opens again, so a call never charges a state it did not read.
 */
abstract sealed class KeyState extends KeyHead implements Cloneable permits SlidingLogState, FixedWindowState,
        SlidingCounterState, TokenBucketState {

    /** W of every slot ({@link #permits} has their N). */
    protected long[] windows;
    /** The periods of every slot counted per calendar period ({@code null} for a window of one length). */
    protected Periods[] periods;
    /**
     * Until when every call is held ({@link #hold}: an upstream said it has no room until then); {@link #lastCharge} is
     * raised to it too, so calls are placed at or after it exactly as behind a reservation.
     */
    private long heldUntil = Long.MIN_VALUE;
    /*
     * For a policy of one limit, where that limit stood at the last refusal of cost 1 (written with refusedUntil, under
     * the monitor, inside a version that is odd while they change: a seqlock, so a reader never mixes two refusals and
     * nothing is allocated). Until the earlier of refusedUntil and resetAt nothing can change that limit's state:
     * nothing is charged, and the permits in use stay in use until resetAt. A decision in that time is written from
     * them without the monitor, exactly as one under the monitor would be. refusedPolicy is null when there is none.
     */
    private volatile int refusalVersion;
    private volatile Policy refusedPolicy;
    private volatile long refusedAt;
    private volatile long refusedRemaining;
    private volatile long refusedResetAt;

    // Outputs of computeWaits(), read under the same lock (no allocation per decision); an admission writes none.
    protected int tripped;
    protected long retry;

    // Outputs of standing(), read under the same lock.
    protected long left;
    protected long resetIn;

    /**
     * N, W and the periods of a policy's limits, in its order: the slots a new key's state starts with. Shared by
     * every key of that policy and never written (a change of slots makes new arrays, {@link #setSlots}), so a key
     * keeps none of its own.
     */
    record Slots(int[] permits, long[] windows, Periods[] periods) {

        static Slots of(Policy policy) {
            List<Limit> limits = policy.limits();
            int n = limits.size();
            int[] permits = new int[n];
            long[] windows = new long[n];
            Periods[] periods = new Periods[n];
            for (int i = 0; i < n; i++) {
                permits[i] = limits.get(i).permits();
                windows[i] = limits.get(i).windowMicros();
                periods[i] = limits.get(i).periods();
            }
            return new Slots(permits, windows, periods);
        }
    }

    protected KeyState(Policy policy, Slots slots) {
        super(policy);
        n = slots.permits.length;
        permits = slots.permits;
        windows = slots.windows;
        periods = slots.periods;
    }

    /** Counts under {@code p} from now on, carrying everything counted so far over to its limits ({@link #track}). */
    private void adopt(Policy p, long now) {
        Policy old = policy;
        if (p == old) {
            return;
        }
        if (!p.limits().equals(old.limits())) {
            track(p.limits(), now);
            refuseUntil(Long.MIN_VALUE, now); // a raised limit admits at once
        }
        policy = p;
    }

    /**
     * Makes {@code limits} the limits in force. Each takes the slot that counts the same way
     * ({@link #counts}), whether it was in force or kept; a limit with none starts from the most permits
     * any slot holds now (the carry). Slots no limit takes are kept after them.
     */
    private void track(List<Limit> limits, long now) {
        int k = limits.size();
        int m0 = permits.length;
        int[] from = new int[k + m0];
        int[] np = new int[k + m0];
        long[] nw = new long[k + m0];
        Periods[] npp = new Periods[k + m0];
        boolean[] taken = new boolean[m0];
        long carry = 0;
        for (int j = 0; j < m0; j++) {
            carry = Math.max(carry, used(j, now));
        }
        int m = 0;
        for (int i = 0; i < k; i++) {
            Limit l = limits.get(i);
            int match = -1;
            for (int j = 0; j < m0 && match < 0; j++) {
                if (!taken[j] && counts(j, l)) {
                    match = j;
                }
            }
            if (match >= 0) {
                taken[match] = true;
            }
            from[m] = match;
            np[m] = l.permits();
            npp[m] = l.periods();
            nw[m++] = l.windowMicros();
        }
        for (int j = 0; j < m0; j++) {
            if (!taken[j]) {
                from[m] = j;
                np[m] = permits[j];
                npp[m] = periods[j];
                nw[m++] = windows[j];
            }
        }
        setSlots(Arrays.copyOf(from, m), Arrays.copyOf(np, m), Arrays.copyOf(nw, m), Arrays.copyOf(npp, m), carry, now);
        n = k;
    }

    /** Forgets the kept slots that hold nothing at {@code now}: they never count again. */
    private void forgetEmptyKept(long now) {
        int m0 = permits.length;
        if (m0 == n) {
            return;
        }
        int[] from = new int[m0];
        int m = 0;
        for (int j = 0; j < m0; j++) {
            if (j < n || used(j, now) > 0) {
                from[m++] = j;
            }
        }
        if (m == m0) {
            return;
        }
        int[] np = new int[m];
        long[] nw = new long[m];
        Periods[] npp = new Periods[m];
        for (int s = 0; s < m; s++) {
            np[s] = permits[from[s]];
            nw[s] = windows[from[s]];
            npp[s] = periods[from[s]];
        }
        setSlots(Arrays.copyOf(from, m), np, nw, npp, 0, now);
    }

    /** Replaces the slots ({@link #rebuild}), then their N, W and periods. */
    private void setSlots(int[] from, int[] np, long[] nw, Periods[] npp, long carry, long now) {
        periods = npp; // first: rebuild reads the new slots' periods (a fixed window's calendar)
        rebuild(from, np, nw, carry, now);
        permits = np;
        windows = nw;
    }

    /**
     * Replaces the counting state of the slots: new slot {@code s} has N {@code np[s]} and W {@code nw[s]}, and the
     * counting state of old slot {@code from[s]} (whose N and W are still in {@link #permits} and {@link #windows}),
     * or, with {@code from[s] == -1}, starts from {@code carry} permits at {@code now}.
     */
    protected abstract void rebuild(int[] from, int[] np, long[] nw, long carry, long now);

    /** Drops, before a charge, what no slot counts any more at {@code now} (the sliding log's old instants). */
    protected void forget(long now) {
    }

    /** Whether slot {@code j} counts permits as limit {@code l} would, so that {@code l} can go on from it. */
    protected boolean counts(int j, Limit l) {
        return windows[j] == l.windowMicros() && java.util.Objects.equals(periods[j], l.periods());
    }

    /** The permits slot {@code j} holds at {@code now}: what a limit starting now carries over from it. */
    protected abstract long used(int j, long now);

    /**
     * Decides one call at {@code now}: checks every limit, then charges all of them or none; the decision, with every
     * limit's state after it, is written into {@code out}. A call may wait up to {@code maxWait} microseconds: it is
     * then admitted for the first instant at which every limit has room, and charged at that instant (a
     * reservation), provided that instant is no later than {@code now + maxWait}; else it is refused at once. Calls
     * are placed in order of arrival: none is placed before a reservation already made ({@link #lastCharge}).
     *
     * @return false if this state was retired and the key must be looked up again (nothing written)
     */
    final boolean decide(Policy p, long now, int cost, long maxWait, DecisionBuffer out) {
        int v = refusalVersion;
        if (cost == 1 && (v & 1) == 0 && refusedPolicy == p) { // a dearer call waits longer: ask the state
            long until = refusedUntil;
            long at = Math.max(now, refusedAt);
            long remaining = refusedRemaining;
            long resetAt = refusedResetAt;
            if (refusalVersion == v && now < until && now < resetAt && until - at > maxWait) {
                out.decided(p, false, 0, until - at, at, 0, 1);
                out.limit(0, remaining, resetAt - at);
                return true;
            }
        }
        if (decideAtOnce(p, now, cost, maxWait, out) >= 0) {
            return true;
        }
        synchronized (this) {
            long seen = lastMicros;
            absorb();
            if (!decideLocked(p, now, cost, maxWait, out)) {
                return false;
            }
            afterLocked(seen);
            return true;
        }
    }

    /**
     * A refusal of cost 1 that leaves no room for this long (µs) is not answered from the cell but by the monitor, which
     * remembers it on the key ({@link #refuseUntil}): the refusals after it, until it ends, read the key alone, where the
     * cell would be one more object to read (a cache miss when many keys are decided). Shorter refusals are answered from
     * the cell, so a key refused for a microsecond at a time does not queue for its monitor.
     */
    protected static final long REMEMBERED_REFUSAL_MICROS = 10;

    /**
     * Decides without the monitor when the strategy can ({@link #absorb}), exactly as {@link #decideLocked} would, writing
     * the decision into {@code out} unless it is null; a refusal of cost 1 longer than {@link #REMEMBERED_REFUSAL_MICROS}
     * is left to the monitor.
     *
     * @return 1 admitted, 0 refused, -1 when only the monitor can decide this call
     */
    protected int decideAtOnce(Policy p, long now, int cost, long maxWait, DecisionBuffer out) {
        return -1;
    }

    /**
     * Under the monitor, before the counting state is read or changed: takes its number back from the open cell, if
     * any, and closes that cell for good.
     */
    protected void absorb() {
    }

    /**
     * Under the monitor, for a method that only reads: copies the open cell's number into the counting state, leaving
     * the cell open (what calls charge there meanwhile is taken back by the next {@link #absorb}).
     */
    protected void refresh() {
    }

    /** Under the monitor: opens a cell for {@link #decideAtOnce} from the counting state as it stands now. */
    protected void publish() {
    }

    /**
     * Under the monitor, after a decision made there, {@code seen} being the newest instant seen before it: opens a cell
     * when the key is hot ({@link #publishIfHot}), or what else lets the next calls decide without the monitor.
     */
    protected void afterLocked(long seen) {
        publishIfHot(seen);
    }

    /**
     * For a strategy that decides behind its gate ({@link KeyHead#enterGate}) rather than the monitor: exactly what
     * {@link #tryAcquire} ({@code out == null}) or {@link #decide} decides under the monitor, the caller holding the gate.
     *
     * @return 1 admitted, 0 refused, -1 when the state was retired (the monitor then says so)
     */
    protected final int decideBehindGate(Policy p, long now, int cost, long maxWait, DecisionBuffer out) {
        if (retired) { // (the gate closes before a state retires: not reached)
            return -1;
        }
        if (out == null) {
            return tryLocked(p, now, cost);
        }
        decideLocked(p, now, cost, maxWait, out);
        return out.allowed() ? 1 : 0;
    }

    /** The decision of {@link #tryAcquire} on a state that is not retired, under the monitor or behind the gate. */
    private int tryLocked(Policy p, long now, int cost) {
        now = observe(now);
        adopt(p, Math.max(now, lastCharge));
        return admitAndCharge(now, cost, 0) ? 1 : 0;
    }

    /**
     * A key decided under the monitor again within this many microseconds is <em>hot</em>: its next calls are likely to
     * meet others on the monitor, so a cell is opened for them ({@link #publishIfHot}). A key decided less often keeps
     * deciding under the monitor, uncontended, and allocates no cell.
     */
    static final long HOT_MICROS = 100;

    /**
     * After a decision under the monitor, opens a cell when the key is hot (the decision before it, at {@code seen}, is
     * at most {@link #HOT_MICROS} old) and every call can be decided from one number: one limit, kept slots forgotten,
     * refusals not counted, nothing reserved or held ahead of the newest instant seen, no refusal remembered on the key
     * (the calls until it ends are answered from the key alone; the first after it opens a cell if the key is still
     * hot), and the state not retired. Other methods that take the monitor close the cell and leave it closed: the next
     * decision opens one.
     */
    private void publishIfHot(long seen) {
        if (seen != Long.MIN_VALUE && lastMicros - seen <= HOT_MICROS && !retired && n == 1 && permits.length == 1
                && !policy.countRejected()
                && lastCharge <= lastMicros && refusedUntil <= lastMicros) {
            publish();
        }
    }

    private boolean decideLocked(Policy p, long now, int cost, long maxWait, DecisionBuffer out) {
        if (retired) {
            return false;
        }
        now = observe(now);
        adopt(p, Math.max(now, lastCharge));
        boolean allowed = admitAndCharge(now, cost, maxWait);
        // the limits as of the instant the call is admitted at (its charge, now the latest), or as of the first instant
        // a call could be placed at
        long at = Math.max(now, lastCharge);
        out.decided(policy, allowed, allowed ? -1 : tripped, allowed ? 0 : retry, allowed ? at : now,
                allowed ? at - now : 0, n);
        for (int i = 0; i < n; i++) {
            standing(i, at);
            out.limit(i, left, resetIn + (allowed ? 0 : at - now));
        }
        return true;
    }

    /** What {@link #decideAll} answers when every ask is admitted. */
    static final int ALL_ADMITTED = -1;

    /** The most times {@link #decideAll} moves the call's instant later before it refuses it. */
    private static final int GROUP_ROUNDS = 8;

    /**
     * Decides a call of several policies in one step, {@code states[i]} the state of {@code asks[i]} (each a different
     * state): every state admits and all are charged at one instant, or none is charged (refused attempts neither, under
     * count-rejected). An ask whose own limits have no room within its max-wait refuses the call; else the call is placed
     * at the first instant every state has room (never before a reservation made on any of them), which may be as late as
     * the longest max-wait allows. The caller holds {@link MemoryStore}'s group lock, so two such calls never take the
     * monitors in different orders; a call of one key takes only its own monitor, never waiting for another.
     *
     * @return {@link #ALL_ADMITTED} (every {@code out[i]} written), the index of the ask that refuses (only its
     *         {@code out} written), or {@code -2 - i} when state {@code i} was retired (nothing written or charged)
     */
    static int decideAll(KeyState[] states, dev.slidegate.core.Rates.Asked[] asks, long now, DecisionBuffer[] out) {
        return lockedFrom(0, states, asks, now, out);
    }

    private static int lockedFrom(int i, KeyState[] states, dev.slidegate.core.Rates.Asked[] asks, long now,
            DecisionBuffer[] out) {
        if (i == states.length) {
            return decideAllLocked(states, asks, now, out);
        }
        synchronized (states[i]) {
            return lockedFrom(i + 1, states, asks, now, out);
        }
    }

    private static int decideAllLocked(KeyState[] states, dev.slidegate.core.Rates.Asked[] asks, long now,
            DecisionBuffer[] out) {
        int k = states.length;
        for (int i = 0; i < k; i++) {
            if (states[i].retired) {
                return -2 - i;
            }
        }
        long[] nowOf = new long[k];
        long at = Long.MIN_VALUE;
        long latest = Long.MIN_VALUE; // the latest instant the call may be placed at: its longest max-wait
        for (int i = 0; i < k; i++) { // each on its own: the first that has no room within its max-wait refuses
            KeyState s = states[i];
            s.absorb();
            long sNow = s.observe(now);
            nowOf[i] = sNow;
            s.adopt(asks[i].policy(), Math.max(sNow, s.lastCharge));
            long from = Math.max(sNow, s.lastCharge);
            int cost = asks[i].cost();
            boolean possible = s.computeWaits(from, cost);
            long wait = from - sNow + (s.tripped < 0 ? 0 : s.retry);
            if (!possible || wait > asks[i].maxWaitMicros()) {
                s.refusedAt(sNow, from, wait, out[i]);
                return i;
            }
            at = Math.max(at, sNow + wait);
            latest = Math.max(latest, sNow + asks[i].maxWaitMicros());
        }
        for (int round = 0;; round++) { // every state at the latest of their instants: room there too, or later
            int worst = -1;
            long later = at;
            for (int i = 0; i < k; i++) {
                KeyState s = states[i];
                if (!s.fits(at, asks[i].cost())) {
                    s.computeWaits(at, asks[i].cost());
                    long sAt = at + Math.max(1, s.retry);
                    if (sAt > later) {
                        later = sAt;
                        worst = i;
                    }
                }
            }
            if (worst < 0) {
                break;
            }
            if (later > latest || round == GROUP_ROUNDS) {
                KeyState s = states[worst];
                s.computeWaits(at, asks[worst].cost());
                s.refusedAt(nowOf[worst], at, later - nowOf[worst], out[worst]);
                return worst;
            }
            at = later;
        }
        for (int i = 0; i < k; i++) {
            KeyState s = states[i];
            s.charge(nowOf[i], at, asks[i].cost());
            s.refuseUntil(Long.MIN_VALUE, nowOf[i]);
            out[i].decided(s.policy, true, -1, 0, at, at - nowOf[i], s.n);
            for (int j = 0; j < s.n; j++) {
                s.standing(j, at);
                out[i].limit(j, s.left, s.resetIn);
            }
        }
        return ALL_ADMITTED;
    }

    /**
     * Writes a refusal at {@code now} into {@code out}, {@link #computeWaits} having been asked at {@code from}: room
     * {@code retry} from now at the earliest (or never); each limit as of {@code from}.
     */
    private void refusedAt(long now, long from, long retry, DecisionBuffer out) {
        int t = tripped < 0 ? fullest(from) : tripped;
        out.decided(policy, false, t, retry, now, 0, n);
        for (int i = 0; i < n; i++) {
            standing(i, from);
            out.limit(i, left, resetIn + from - now);
        }
    }

    /**
     * The same decision as {@link #decide} without waiting, reporting only the outcome, without allocating.
     *
     * @return 1 admitted, 0 refused, -1 retired (look the key up again)
     */
    final int tryAcquire(Policy p, long now, int cost) {
        if (p == policy && now < refusedUntil) { // the policy first: adopt() clears refusedUntil before it sets a new one
            return 0;
        }
        int fast = decideAtOnce(p, now, cost, 0, null);
        if (fast >= 0) {
            return fast;
        }
        synchronized (this) {
            if (retired) {
                return -1;
            }
            long seen = lastMicros;
            absorb();
            int outcome = tryLocked(p, now, cost);
            afterLocked(seen);
            return outcome;
        }
    }

    /**
     * Sets {@link #refusedUntil} (under the monitor), and for a policy of one limit refused until a later instant, with
     * nothing reserved ahead of {@code now}, where that limit stands at {@code now}; anything else clears the latter.
     */
    private void refuseUntil(long until, long now) {
        // each write a release store (a plain store on x86, where a volatile one adds a fence: seven of them made a
        // remembered refusal the dearest step of a key admitting millions a second): it is seen after everything written
        // before it, which is all a seqlock needs, since its readers read with volatile (acquire) loads
        int v = refusalVersion;
        REFUSAL_VERSION.setRelease(this, v + 1); // odd: readers take the monitor
        if (until > now && n == 1 && lastCharge <= now) {
            standing(0, now);
            REFUSED_AT.setRelease(this, now);
            REFUSED_REMAINING.setRelease(this, left);
            REFUSED_RESET_AT.setRelease(this, now + resetIn);
            REFUSED_POLICY.setRelease(this, policy);
        } else {
            REFUSED_POLICY.setRelease(this, (Policy) null);
        }
        REFUSED_UNTIL.setRelease(this, until);
        REFUSAL_VERSION.setRelease(this, v + 2);
    }

    private static final java.lang.invoke.VarHandle REFUSAL_VERSION;
    private static final java.lang.invoke.VarHandle REFUSED_AT;
    private static final java.lang.invoke.VarHandle REFUSED_REMAINING;
    private static final java.lang.invoke.VarHandle REFUSED_RESET_AT;
    private static final java.lang.invoke.VarHandle REFUSED_POLICY;
    private static final java.lang.invoke.VarHandle REFUSED_UNTIL;

    static {
        java.lang.invoke.MethodHandles.Lookup lookup = java.lang.invoke.MethodHandles.lookup();
        try {
            REFUSAL_VERSION = lookup.findVarHandle(KeyState.class, "refusalVersion", int.class);
            REFUSED_AT = lookup.findVarHandle(KeyState.class, "refusedAt", long.class);
            REFUSED_REMAINING = lookup.findVarHandle(KeyState.class, "refusedRemaining", long.class);
            REFUSED_RESET_AT = lookup.findVarHandle(KeyState.class, "refusedResetAt", long.class);
            REFUSED_POLICY = lookup.findVarHandle(KeyState.class, "refusedPolicy", Policy.class);
            REFUSED_UNTIL = lookup.findVarHandle(KeyHead.class, "refusedUntil", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The instant to decide at: never before one this key has already seen. */
    private long observe(long now) {
        lastMicros = Math.max(now, lastMicros);
        return lastMicros;
    }

    /**
     * Checks every limit at the first instant a call can be placed at (now, or the last reservation), then charges all
     * of them at once, or at the instant they all have room when that is within {@code maxWait} (which becomes
     * {@link #lastCharge}), or refuses (charging the attempt only with count-rejected). A refusal sets tripped and retry,
     * the latter counted from {@code now}; an admission leaves them as they were (nothing reads them after one).
     */
    private boolean admitAndCharge(long now, int cost, long maxWait) {
        long from = Math.max(now, lastCharge);
        if (from - now <= maxWait && fits(from, cost)) { // the usual admission, without the wait's outputs
            charge(now, from, cost);
            return true;
        }
        boolean possible = computeWaits(from, cost);
        long wait = from - now + (tripped < 0 ? 0 : retry);
        if (possible && wait <= maxWait) {
            charge(now, now + wait, cost);
            return true;
        }
        if (tripped < 0) { // every limit has room at "from", but that is later than this call may wait
            tripped = fullest(from);
        }
        retry = wait;
        if (cost == 1 && !policy.countRejected()) {
            refuseUntil(now + retry, now);
        }
        if (policy.countRejected()) {
            forgetEmptyKept(from);
            forget(from);
            charge(from, cost);
            lastCharge = from;
            computeWaits(from, cost); // the refused attempt counted: the wait starts from it
            retry = from - now + retry;
        }
        return false;
    }

    /** Charges {@code cost} at {@code at}, for a call decided at {@code now} and admitted. */
    private void charge(long now, long at, int cost) {
        forgetEmptyKept(at);
        forget(at);
        charge(at, cost);
        if (at > now) {
            refuseUntil(Long.MIN_VALUE, now); // the refusals answered so far did not wait behind this call
        }
        lastCharge = at;
    }

    /** Whether every limit in force admits {@code cost} at {@code now}. */
    private boolean fits(long now, int cost) {
        for (int i = 0; i < n; i++) {
            if (cost > permits[i] || waitFor(i, now, cost) > 0) {
                return false;
            }
        }
        return true;
    }

    /** The limit in force with the fewest permits left at {@code at} (the first of them). */
    private int fullest(long at) {
        int fullest = 0;
        long least = Long.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            standing(i, at);
            if (left < least) {
                least = left;
                fullest = i;
            }
        }
        return fullest;
    }

    /**
     * The state at {@code now} as a decision under {@code p} would see it, charging and changing nothing
     * (time never steps back here either): under other limits, a copy carries them over.
     */
    final synchronized Decision peek(Policy p, long now) {
        refresh();
        now = Math.max(now, Math.max(lastMicros, lastCharge));
        KeyState view = this;
        if (!p.limits().equals(policy.limits())) {
            view = copy(); // carrying over replaces arrays (never writes into them), so the copy may share them
            view.track(p.limits(), now);
            view.policy = p;
        }
        LimitState[] states = new LimitState[view.n];
        for (int i = 0; i < states.length; i++) {
            states[i] = view.state(i, now);
        }
        return new Decision(p, true, -1, 0, now, List.of(states));
    }

    private KeyState copy() {
        try {
            return (KeyState) clone();
        } catch (CloneNotSupportedException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * Places no call before {@code until} (never earlier than a hold already made): each waits for it, or is refused
     * with the time left, as behind a reservation. Charges nothing.
     *
     * @return false if this state was retired and the key must be looked up again
     */
    final synchronized boolean hold(long now, long until) {
        return hold(now, until, false);
    }

    /** As {@link #hold(long, long)}; {@code unlessHeld}: nothing changes while a hold is in force (a block). */
    final synchronized boolean hold(long now, long until, boolean unlessHeld) {
        if (retired) {
            return false;
        }
        if (unlessHeld && heldUntil > observe(now)) {
            return true;
        }
        absorb(); // no call is placed before the hold: none decides from a cell until it ends
        now = observe(now);
        heldUntil = Math.max(heldUntil, until);
        lastCharge = Math.max(lastCharge, until);
        refuseUntil(Long.MIN_VALUE, now); // a refusal remembered before the hold would answer too short a wait
        return true;
    }

    /**
     * Charges {@code delta} more permits (refunds, below 0) where a call admitted at {@code at} was charged
     * ({@link dev.slidegate.core.DecisionStore#settle}); a refusal remembered before is forgotten, since a refund may
     * leave room sooner.
     *
     * @return false (nothing done) for a retired state: what it counted counts nowhere
     */
    final synchronized boolean settle(long now, long at, long delta) {
        if (retired) {
            return false;
        }
        absorb();
        now = observe(now);
        settleSlots(now, at, delta);
        refuseUntil(Long.MIN_VALUE, now);
        return true;
    }

    /** Charges {@code delta} (refunds, below 0) in every slot where the charge made at {@code at} went, as of {@code now}. */
    protected abstract void settleSlots(long now, long at, long delta);

    /**
     * Gives back up to {@code count} permits recorded at {@code at} ({@link dev.slidegate.core.Rates#refund}), for a call
     * that will not run on them; a refusal remembered before is forgotten.
     *
     * @return false (nothing done) for a retired state
     */
    final synchronized boolean refund(long now, long at, int count) {
        if (retired) {
            return false;
        }
        absorb();
        now = observe(now);
        refundSlots(at, count);
        refuseUntil(Long.MIN_VALUE, now);
        return true;
    }

    /** Removes up to {@code count} permits recorded at {@code at}: a sliding log's; the strategies that settle settle. */
    protected void refundSlots(long at, int count) {
        throw new UnsupportedOperationException("a " + policy.strategy() + " settles what it gives back");
    }

    /** Microseconds from {@code now} until the hold ends, 0 when the key is not held. */
    final synchronized long heldFor(long now) {
        long at = Math.max(now, lastMicros);
        return heldUntil <= at ? 0 : heldUntil - at;
    }

    /** Whether this state still counts anything at {@code now}. */
    final synchronized boolean activeAt(long now) {
        refresh();
        return !retired && !idleAt(now);
    }

    /** Idle: nothing reserved ahead of {@code now}, and nothing recorded counts any more. */
    private boolean idleAt(long now) {
        return lastCharge <= now && idle(now);
    }

    /** Retires this state if it holds nothing that counts at {@code now}, or unconditionally with {@code force}. */
    final synchronized boolean retire(long now, boolean force) {
        if (retired) {
            return true;
        }
        now = Math.max(now, Math.max(lastMicros, lastCharge)); // idle as of the newest instant seen: time never steps back
        refresh();
        if (force || idleAt(now)) {
            absorb(); // closed: a call that read the cell takes the monitor and finds the state retired
            if (force || idleAt(now)) { // (a call may have charged the cell between the two)
                retired = true;
                refuseUntil(Long.MIN_VALUE, now); // callers must see the retirement and look the key up again
                return true;
            }
        }
        return false;
    }

    final synchronized boolean isRetired() {
        return retired;
    }

    /**
     * Sets {@link #tripped} (-1 when every limit in force admits {@code cost} at {@code now}) and
     * {@link #retry} (the longest wait among refusing limits).
     *
     * @return false when a limit can never admit {@code cost} (more than its N): its wait is then its window
     */
    private boolean computeWaits(long now, int cost) {
        tripped = -1;
        retry = 0;
        boolean possible = true;
        for (int i = 0; i < n; i++) {
            long wait;
            if (cost > permits[i]) {
                wait = windows[i];
                possible = false;
            } else {
                wait = waitFor(i, now, cost);
            }
            if (wait > retry) {
                retry = wait;
                tripped = i;
            }
        }
        if (!possible && tripped < 0) {
            tripped = 0;
        }
        return possible;
    }

    /** Microseconds until limit {@code i} admits {@code cost} (≤ 0: admits now); {@code cost ≤ permits[i]}. */
    protected abstract long waitFor(int i, long now, int cost);

    /** Records {@code cost} permits at {@code now} in every slot. */
    protected abstract void charge(long now, int cost);

    /** Limit {@code i} in force as seen at {@code now}. */
    private LimitState state(int i, long now) {
        standing(i, now);
        return new LimitState(limit(i), left, resetIn);
    }

    /** Sets {@link #left} and {@link #resetIn} to where limit {@code i} in force stands at {@code now}. */
    protected abstract void standing(int i, long now);

    /** Whether nothing recorded in any slot still counts at {@code now}, so the state can be dropped. */
    protected boolean idle(long now) {
        for (int j = 0; j < permits.length; j++) {
            if (used(j, now) > 0) {
                return false;
            }
        }
        return true;
    }

    /** The limit in force at slot {@code i}, for states. */
    protected final Limit limit(int i) {
        return policy.limits().get(i);
    }
}
