package dev.slidegate.memory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Limit;
import dev.slidegate.api.LimitState;
import dev.slidegate.api.Policy;
import dev.slidegate.api.Strategy;
import dev.slidegate.core.Clock;
import dev.slidegate.core.DecisionStore;
import dev.slidegate.core.InFlightSlots;
import dev.slidegate.core.LimiterStore;
import dev.slidegate.core.Rates;

/**
 * The obvious, slow implementation of each strategy, straight from its definition: every charge of a
 * key in a list, windows counted by scanning it. Scenarios and random timelines compare the real
 * stores with it.
 *
 * <p>
 * Limits may change between calls for the same policy name (an override), as docs/strategies.md "When
 * limits change" states: a key counts every limit it has counted under that still holds a permit (a
 * <em>slot</em>); every charge is recorded in every slot from the decision that created it on; a limit
 * without a slot that counts as it does starts from the most permits any slot holds then (the carry);
 * a slot not in force that holds nothing when a charge comes is forgotten. Here a fixed window or sliding
 * counter slot is its start (the number of charges before it) and its carry, counted by scanning the
 * charges; a token bucket slot is a continuous level; the sliding log is one list of instants.
 */
public final class ReferenceStore implements LimiterStore {

    /** One recorded charge: its sequence number for the key, instant and cost. */
    private record Charge(long seq, long at, long cost) {
    }

    /** One limit counted: where it started (charges before it are in its carry) and, for a bucket, its level. */
    private static final class Slot {
        final Limit limit;
        final long startSeq;
        final long startAt;
        final long carry;
        long level; // token bucket: microseconds of drain at levelAt
        long levelAt;

        Slot(Limit limit, long startSeq, long startAt, long carry) {
            this.limit = limit;
            this.startSeq = startSeq;
            this.startAt = startAt;
            this.carry = carry;
        }

        Slot copy() {
            Slot s = new Slot(limit, startSeq, startAt, carry);
            s.level = level;
            s.levelAt = levelAt;
            return s;
        }
    }

    /** Everything a key holds. */
    private static final class KeyData {
        final List<Charge> charges = new ArrayList<>();
        final List<Long> log = new ArrayList<>(); // sliding log: instants, oldest first
        List<Slot> slots = new ArrayList<>(); // [0, inForce) the limits in force, in the policy's order
        int inForce;
        List<Limit> limits;
        long last = Long.MIN_VALUE;
        long lastCharge = Long.MIN_VALUE;
        long heldUntil = Long.MIN_VALUE;

        KeyData copy() {
            KeyData d = new KeyData();
            d.charges.addAll(charges);
            d.log.addAll(log);
            d.slots = new ArrayList<>(slots.stream().map(Slot::copy).toList());
            d.inForce = inForce;
            d.limits = limits;
            d.last = last;
            d.lastCharge = lastCharge;
            d.heldUntil = heldUntil;
            return d;
        }
    }

    private final Clock clock;
    private final Map<String, KeyData> data = new HashMap<>();
    private final Map<String, java.util.TreeSet<String>> keysByPolicy = new HashMap<>();

    public ReferenceStore(Clock clock) {
        this.clock = clock;
    }

    @Override
    public String name() {
        return "reference";
    }

    @Override
    public synchronized CompletionStage<Decision> acquire(Policy policy, String key, int cost, long maxWaitMicros) {
        return CompletableFuture.completedFuture(decide(policy, key, cost, maxWaitMicros, Long.MIN_VALUE,
                policy.countRejected()));
    }

    /**
     * The model of a call of several policies: each on its own with its own max-wait (the first refusal answers), then,
     * unless all admitted at once, all again from their state before the call, no earlier than the latest instant, within
     * the longest max-wait, until every one is placed at the same instant (8 rounds at most); nothing is charged for a
     * refused call.
     */
    @Override
    public synchronized CompletionStage<List<Decision>> acquireAll(List<Asked> asks) {
        Map<String, KeyData> before = new HashMap<>();
        for (Asked a : asks) {
            KeyData d = data.get(id(a.policy(), a.key()));
            before.put(id(a.policy(), a.key()), d == null ? null : d.copy());
        }
        Runnable restore = () -> before.forEach((id, d) -> {
            if (d == null) {
                data.remove(id);
            } else {
                data.put(id, d.copy());
            }
        });
        List<Decision> made = new ArrayList<>();
        long at = Long.MIN_VALUE;
        long budget = 0;
        boolean waits = false;
        for (Asked a : asks) {
            Decision d = decide(a.policy(), a.key(), a.cost(), a.maxWaitMicros(), Long.MIN_VALUE, false);
            if (!d.allowed()) {
                restore.run();
                return CompletableFuture.completedFuture(List.of(d));
            }
            made.add(d);
            at = Math.max(at, d.atMicros());
            budget = Math.max(budget, a.maxWaitMicros());
            waits |= d.waitMicros() > 0;
        }
        for (int round = 1; waits && round <= 8; round++) {
            restore.run();
            made.clear();
            long later = at;
            for (Asked a : asks) {
                Decision d = decide(a.policy(), a.key(), a.cost(), budget, at, false);
                if (!d.allowed()) {
                    restore.run();
                    return CompletableFuture.completedFuture(List.of(d));
                }
                made.add(d);
                later = Math.max(later, d.atMicros());
            }
            if (later == at) {
                return CompletableFuture.completedFuture(made);
            }
            at = later;
        }
        if (waits) {
            restore.run();
            Decision last = made.get(made.size() - 1);
            return CompletableFuture.completedFuture(List.of(new Decision(last.policy(), false, 0, last.waitMicros(),
                    last.atMicros() - last.waitMicros(), last.states())));
        }
        return CompletableFuture.completedFuture(made);
    }

    private static String id(Policy policy, String key) {
        return policy.name() + "\u0000" + key;
    }

    private Decision decide(Policy policy, String key, int cost, long maxWaitMicros, long notBefore,
            boolean countRejected) {
        String id = id(policy, key);
        Rates.checkRates(policy);
        KeyData d = data.computeIfAbsent(id, k -> new KeyData());
        long now = Math.max(clock.nowMicros(), d.last);
        d.last = now;
        // no call is placed before a reservation already made, nor within a hold: the key is decided at the later of
        // its newest charge and the hold's end, if later than now (and of the instant a call of several policies asks)
        long from = Math.max(Math.max(now, notBefore), Math.max(d.lastCharge, d.heldUntil));
        follow(d, policy, from);
        List<Limit> limits = policy.limits();
        int tripped = -1;
        long retry = 0;
        boolean possible = true;
        for (int i = 0; i < limits.size(); i++) {
            possible &= cost <= limits.get(i).permits();
            long wait = waitFor(d, policy, i, from, cost);
            if (wait > retry) {
                retry = wait;
                tripped = i;
            }
        }
        long wait = from - now + (tripped < 0 ? 0 : retry);
        if (possible && wait <= maxWaitMicros) {
            long at = now + wait;
            charge(d, policy, key, at, cost);
            d.lastCharge = at;
            return new Decision(policy, true, -1, 0, at, states(d, policy, at, 0), false, wait);
        }
        if (tripped < 0) { // room at "from", later than the call may wait: the limit with the fewest permits left then
            long least = Long.MAX_VALUE;
            for (int i = 0; i < limits.size(); i++) {
                long left = state(d, policy, i, from).remaining();
                if (left < least) {
                    least = left;
                    tripped = i;
                }
            }
        }
        retry = wait;
        if (countRejected) {
            charge(d, policy, key, from, cost);
            d.lastCharge = from;
            tripped = -1;
            retry = 0;
            for (int i = 0; i < limits.size(); i++) {
                long w = waitFor(d, policy, i, from, cost);
                if (w > retry) {
                    retry = w;
                    tripped = i;
                }
            }
            retry += from - now;
        }
        return new Decision(policy, false, tripped, retry, now, states(d, policy, from, from - now));
    }

    /**
     * Settles by changing the charges made at {@code admittedAtMicros} by the difference (a refund from the newest on,
     * none below 0): every count that scans the charges sees it from now on; a token bucket's level
     * moves now.
     */
    /** The log loses up to {@code cost} of its instants equal to {@code atMicros}, the newest first. */
    @Override
    public synchronized CompletionStage<Void> refund(Policy policy, String key, long atMicros, int cost) {
        KeyData d = data.get(policy.name() + "\u0000" + key);
        for (int i = d == null ? -1 : d.log.size() - 1, given = 0; i >= 0 && given < cost; i--) {
            if (d.log.get(i) == atMicros) {
                d.log.remove(i);
                given++;
            }
        }
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public synchronized CompletionStage<Long> settle(Policy policy, String key, long admittedAtMicros, int estimate,
            long actual) {
        long delta = DecisionStore.settlement(policy, estimate, actual);
        KeyData d = data.get(policy.name() + "\u0000" + key);
        long now = clock.nowMicros();
        if (d == null && delta > 0 && policy.strategy() == Strategy.TOKEN_BUCKET) { // charged from full
            d = data.computeIfAbsent(policy.name() + "\u0000" + key, k -> new KeyData());
            follow(d, policy, now);
        }
        if (d == null || delta == 0) {
            return CompletableFuture.completedFuture(now);
        }
        now = Math.max(now, d.last);
        d.last = now;
        if (policy.strategy() == Strategy.TOKEN_BUCKET) {
            for (Slot s : d.slots) {
                long t = interval(s.limit);
                long level = level(s, now);
                if (delta > 0) {
                    level += delta > (1L << 50) / t ? 1L << 50 : delta * t;
                } else {
                    level = Math.max(0, level + delta * t);
                }
                s.level = level;
                s.levelAt = now;
            }
        } else {
            long left = delta; // the charges made at that instant hold its charge, whichever call each was
            for (int i = d.charges.size() - 1; i >= 0 && left != 0; i--) {
                Charge c = d.charges.get(i);
                if (c.at() == admittedAtMicros) {
                    long cost = Math.max(0, c.cost() + left);
                    left -= cost - c.cost();
                    d.charges.set(i, new Charge(c.seq(), c.at(), cost));
                }
            }
        }
        return CompletableFuture.completedFuture(now);
    }

    @Override
    public synchronized CompletionStage<Long> hold(Policy policy, String key, long forMicros) {
        DecisionStore.checkHold(forMicros);
        if (policy.inFlight()) {
            throw new IllegalArgumentException("calls in flight have no windows to hold");
        }
        KeyData d = data.computeIfAbsent(policy.name() + "\u0000" + key, k -> new KeyData());
        long now = Math.max(clock.nowMicros(), d.last);
        d.last = now;
        d.heldUntil = Math.max(d.heldUntil, now + forMicros);
        return CompletableFuture.completedFuture(d.heldUntil - now);
    }

    @Override
    public synchronized CompletionStage<Long> block(Policy policy, String key, long forMicros) {
        DecisionStore.checkHold(forMicros);
        KeyData d = data.get(policy.name() + "\u0000" + key);
        if (d != null && d.heldUntil > Math.max(clock.nowMicros(), d.last)) { // held: a block does not grow
            return CompletableFuture.completedFuture(d.heldUntil - Math.max(clock.nowMicros(), d.last));
        }
        return hold(policy, key, forMicros);
    }

    @Override
    public synchronized CompletionStage<Long> heldFor(Policy policy, String key) {
        KeyData d = data.get(policy.name() + "\u0000" + key);
        return CompletableFuture
                .completedFuture(d == null || d.heldUntil <= Math.max(clock.nowMicros(), d.last) ? 0
                        : d.heldUntil - Math.max(clock.nowMicros(), d.last));
    }

    private final Map<String, Map.Entry<List<dev.slidegate.api.Limit>, Long>> learned = new java.util.HashMap<>();

    @Override
    public synchronized CompletionStage<Void> learn(Policy policy, String key, List<dev.slidegate.api.Limit> limits,
            long forMicros) {
        List<dev.slidegate.api.Limit> kept = DecisionStore.checkLearned(limits, forMicros);
        if (kept.isEmpty()) {
            learned.remove(policy.name() + "\u0000" + key);
        } else {
            learned.put(policy.name() + "\u0000" + key, Map.entry(kept, clock.nowMicros() + forMicros));
        }
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public synchronized CompletionStage<List<dev.slidegate.api.Limit>> learned(Policy policy, String key) {
        Map.Entry<List<dev.slidegate.api.Limit>, Long> e = learned.get(policy.name() + "\u0000" + key);
        return CompletableFuture.completedFuture(e == null || e.getValue() <= clock.nowMicros() ? List.of() : e.getKey());
    }

    /** Per key of a policy counting calls in flight: its leases, name to expiry (live while now is before it). */
    private final Map<String, java.util.TreeMap<Long, Long>> leases = new HashMap<>();
    /** Per key: the newest lease name granted (names never repeat). */
    private final Map<String, Long> lastLease = new HashMap<>();

    /** The leases of {@code id} live now: every one whose expiry is after now. */
    private java.util.TreeMap<Long, Long> live(String id, long now) {
        java.util.TreeMap<Long, Long> held = leases.computeIfAbsent(id, k -> new java.util.TreeMap<>());
        held.values().removeIf(expiry -> expiry <= now);
        return held;
    }

    @Override
    public synchronized CompletionStage<Decision> enter(Policy policy, String key, long maxWaitMicros) {
        InFlightSlots.checkInFlight(policy);
        String id = policy.name() + "\u0000" + key;
        long now = clock.nowMicros();
        long hint = Math.min(1_000_000L, policy.leaseMicros());
        java.util.TreeMap<Long, Long> held = live(id, now);
        int left = policy.maxInFlight() - held.size();
        if (left <= 0) {
            return CompletableFuture.completedFuture(
                    new Decision(policy, false, 0, hint, now, List.of(new LimitState(policy.limits().get(0), 0, hint))));
        }
        long name = Math.max(now, lastLease.getOrDefault(id, Long.MIN_VALUE) + 1);
        lastLease.put(id, name);
        held.put(name, now + policy.leaseMicros());
        return CompletableFuture.completedFuture(new Decision(policy, true, -1, 0, name,
                List.of(new LimitState(policy.limits().get(0), left - 1, left - 1 == 0 ? hint : 0))));
    }

    /**
     * Not modelled: waiting for a slot is checked against its oracle on the protected resource
     * (SlotQueueScenarios).
     */
    @Override
    public CompletionStage<Turn> queue(Policy policy, String key, List<Long> tickets, long lapseMicros) {
        throw new UnsupportedOperationException("the reference does not queue");
    }

    @Override
    public CompletionStage<Void> unqueue(Policy policy, String key, List<Long> tickets) {
        throw new UnsupportedOperationException("the reference does not queue");
    }

    @Override
    public synchronized CompletionStage<List<Long>> renew(Policy policy, String key, List<Long> names) {
        long now = clock.nowMicros();
        java.util.TreeMap<Long, Long> held = live(policy.name() + "\u0000" + key, now);
        return CompletableFuture.completedFuture(
                InFlightSlots.checkLeases(policy, names).stream()
                        .filter(n -> held.replace(n, now + policy.leaseMicros()) == null)
                        .toList());
    }

    @Override
    public synchronized CompletionStage<Long> oldestLeaseAge(Policy policy, String key) {
        long now = clock.nowMicros();
        java.util.TreeMap<Long, Long> held = live(policy.name() + "\u0000" + key, now);
        return CompletableFuture.completedFuture(held.isEmpty() ? -1L : now - held.firstKey());
    }

    @Override
    public synchronized CompletionStage<List<Long>> leave(Policy policy, String key, List<Long> names) {
        java.util.TreeMap<Long, Long> held = live(policy.name() + "\u0000" + key, clock.nowMicros());
        return CompletableFuture.completedFuture(
                InFlightSlots.checkLeases(policy, names).stream().filter(n -> held.remove(n) == null).toList());
    }

    /** Records a charge at {@code at}, after forgetting what counts nowhere any more. */
    private void charge(KeyData d, Policy policy, String key, long at, int cost) {
        // before a charge: a slot not in force that holds nothing is forgotten, and the log's instants
        // older than the longest window left count nowhere
        List<Slot> kept = new ArrayList<>(d.slots.subList(0, d.inForce));
        for (Slot s : d.slots.subList(d.inForce, d.slots.size())) {
            if (used(d, policy, s, at) > 0) {
                kept.add(s);
            }
        }
        d.slots = kept;
        if (policy.strategy() == Strategy.SLIDING_LOG) {
            long longest = d.slots.stream().mapToLong(s -> s.limit.windowMicros()).max().orElseThrow();
            d.log.removeIf(t -> t < at - longest);
        }
        record(d, policy, at, cost);
        keysByPolicy.computeIfAbsent(policy.name(), n -> new java.util.TreeSet<>()).add(key);
    }

    /** Makes the policy's limits the ones in force: each goes on from a slot that counts as it does, or from the carry. */
    private void follow(KeyData d, Policy policy, long now) {
        if (policy.limits().equals(d.limits)) {
            return;
        }
        if (policy.strategy() == Strategy.SLIDING_LOG && !d.log.isEmpty()) { // none counts in any slot: they count nowhere
            long longest = d.slots.stream().mapToLong(s -> s.limit.windowMicros()).max().orElseThrow();
            if (d.log.get(d.log.size() - 1) < now - longest) {
                d.log.clear();
            }
        }
        long carry = 0;
        for (Slot s : d.slots) {
            carry = Math.max(carry, used(d, policy, s, now));
        }
        List<Slot> old = new ArrayList<>(d.slots);
        List<Slot> slots = new ArrayList<>();
        for (Limit l : policy.limits()) {
            Slot match = null;
            for (Slot s : old) {
                if (s.limit.windowMicros() == l.windowMicros() && java.util.Objects.equals(s.limit.periods(), l.periods())
                        && (s.limit.permits() == l.permits() || !perBucket(policy.strategy()))) {
                    match = s;
                    break;
                }
            }
            if (match != null) {
                old.remove(match);
                Slot same = new Slot(l, match.startSeq, match.startAt, match.carry); // the same count, now under l
                same.level = match.level;
                same.levelAt = match.levelAt;
                slots.add(same);
            } else {
                Slot fresh = new Slot(l, d.charges.size(), now, carry);
                fresh.level = Math.min(carry, l.permits()) * interval(l);
                fresh.levelAt = now;
                slots.add(fresh);
            }
        }
        d.inForce = slots.size();
        slots.addAll(old);
        d.slots = slots;
        d.limits = policy.limits();
    }

    /** A token bucket and a sliding log go on only under the same N and W; counts of a window under any N. */
    private static boolean perBucket(Strategy s) {
        return s == Strategy.TOKEN_BUCKET || s == Strategy.SLIDING_LOG;
    }

    /** The permits slot {@code s} holds at {@code now}. */
    private long used(KeyData d, Policy policy, Slot s, long now) {
        Limit l = s.limit;
        return switch (policy.strategy()) {
            case FIXED_WINDOW -> {
                long idx = period(l, now);
                long used = period(l, s.startAt) == idx ? s.carry : 0;
                for (Charge c : since(d, s)) {
                    if (period(l, c.at()) == idx) {
                        used += c.cost();
                    }
                }
                yield used;
            }
            case SLIDING_COUNTER -> countFromCell(d, policy, s, now / cell(policy, l) - policy.cells());
            case TOKEN_BUCKET -> (level(s, now) + interval(l) - 1) / interval(l);
            case SLIDING_LOG -> Math.min(l.permits(), d.log.stream().filter(t -> t >= now - l.windowMicros()).count());
        };
    }

    /** Which fixed window holds {@code t}: its index, or the start of its calendar period. */
    private static long period(Limit l, long t) {
        return l.periods() != null ? l.periods().startOf(t) : t / l.windowMicros();
    }

    /** The end (exclusive) of the fixed window or calendar period that holds {@code t}. */
    private static long periodEnd(Limit l, long t) {
        return l.periods() != null ? l.periods().endOf(t) : (t / l.windowMicros() + 1) * l.windowMicros();
    }

    private static List<Charge> since(KeyData d, Slot s) {
        return d.charges.subList((int) s.startSeq, d.charges.size());
    }

    private long waitFor(KeyData d, Policy policy, int i, long now, int cost) {
        Slot s = d.slots.get(i);
        Limit l = s.limit;
        if (cost > l.permits()) {
            return l.windowMicros();
        }
        switch (policy.strategy()) {
            case FIXED_WINDOW:
                return used(d, policy, s, now) + cost > l.permits() ? periodEnd(l, now) - now : 0;
            case SLIDING_COUNTER: {
                long size = cell(policy, l);
                long k = now / size;
                for (long next = k; next <= k + policy.cells() + 1; next++) {
                    if (countFromCell(d, policy, s, next - policy.cells()) + cost <= l.permits()) {
                        return next == k ? 0 : next * size - now;
                    }
                }
                throw new IllegalStateException("unreachable");
            }
            case TOKEN_BUCKET: {
                long t = interval(l);
                return level(s, now) + cost * t - l.permits() * t;
            }
            default: {
                List<Long> inWindow = newestFirstInWindow(d, now, l);
                int k = l.permits() - cost + 1; // admitted iff fewer than k in the window
                return inWindow.size() < k ? 0 : inWindow.get(k - 1) + l.windowMicros() + 1 - now;
            }
        }
    }

    /** Each limit as it stands at {@code at}, its reset told {@code ahead} microseconds earlier. */
    private List<LimitState> states(KeyData d, Policy policy, long at, long ahead) {
        List<LimitState> states = new ArrayList<>();
        for (int i = 0; i < policy.limits().size(); i++) {
            LimitState s = state(d, policy, i, at);
            states.add(new LimitState(s.limit(), s.remaining(), s.resetMicros() + ahead));
        }
        return states;
    }

    private LimitState state(KeyData d, Policy policy, int i, long now) {
        Slot s = d.slots.get(i);
        Limit l = s.limit;
        switch (policy.strategy()) {
            case FIXED_WINDOW: {
                long used = used(d, policy, s, now);
                long reset = used == 0 ? 0 : periodEnd(l, now) - now;
                return new LimitState(l, Math.max(0, l.permits() - used), reset);
            }
            case SLIDING_COUNTER: {
                long size = cell(policy, l);
                long from = now / size - policy.cells();
                long used = countFromCell(d, policy, s, from);
                long oldest = since(d, s).stream().filter(c -> c.cost() > 0).mapToLong(c -> c.at() / size)
                        .filter(c -> c >= from).min()
                        .orElse(Long.MAX_VALUE);
                if (s.carry > 0 && s.startAt / size >= from) {
                    oldest = Math.min(oldest, s.startAt / size);
                }
                long reset = used == 0 ? 0 : (oldest + policy.cells() + 1) * size - now;
                return new LimitState(l, Math.max(0, l.permits() - used), reset);
            }
            case TOKEN_BUCKET: {
                long t = interval(l);
                long level = level(s, now);
                long used = (level + t - 1) / t;
                return new LimitState(l, Math.max(0, l.permits() - used), level == 0 ? 0 : (level - 1) % t + 1);
            }
            default: {
                List<Long> inWindow = newestFirstInWindow(d, now, l);
                int used = Math.min(inWindow.size(), l.permits());
                long reset = used == 0 ? 0 : inWindow.get(used - 1) + l.windowMicros() + 1 - now;
                return new LimitState(l, l.permits() - used, reset);
            }
        }
    }

    private static List<Long> newestFirstInWindow(KeyData d, long now, Limit l) {
        List<Long> result = new ArrayList<>();
        for (long t : d.log) {
            if (t >= now - l.windowMicros()) { // a permit at tick t counts through tick t + W
                result.add(t);
            }
        }
        result.sort((a, b) -> Long.compare(b, a));
        return result;
    }

    private void record(KeyData d, Policy policy, long now, int cost) {
        d.charges.add(new Charge(d.charges.size(), now, cost));
        for (int j = 0; j < d.slots.size(); j++) {
            Slot s = d.slots.get(j);
            long t = interval(s.limit);
            long level = level(s, now) + cost * t;
            if (j >= d.inForce) { // a kept bucket fills at most to empty, and is never drained by a charge
                level = Math.max(level(s, now), Math.min(level, s.limit.permits() * t));
            }
            s.level = level;
            s.levelAt = now;
        }
        if (policy.strategy() == Strategy.SLIDING_LOG) {
            for (int j = 0; j < cost; j++) {
                d.log.add(now);
            }
            int most = d.slots.stream().mapToInt(s -> s.limit.permits()).max().orElseThrow();
            if (d.log.size() > most) { // the log keeps the newest max(N) instants, the most any slot reads
                d.log.subList(0, d.log.size() - most).clear();
            }
        }
    }

    private static long cell(Policy policy, Limit l) {
        return (l.windowMicros() + policy.cells() - 1) / policy.cells();
    }

    /** Permits slot {@code s} counts in cells at or after {@code fromCell}: its carry, in its first cell, and its charges. */
    private long countFromCell(KeyData d, Policy policy, Slot s, long fromCell) {
        long size = cell(policy, s.limit);
        long count = s.startAt / size >= fromCell ? s.carry : 0;
        for (Charge c : since(d, s)) {
            if (c.at() / size >= fromCell) {
                count += c.cost();
            }
        }
        return count;
    }

    private static long interval(Limit l) {
        return Math.max(1, (l.windowMicros() + l.permits() - 1) / l.permits());
    }

    /** A bucket's level at {@code now}: what it held at its last charge, drained since. */
    private static long level(Slot s, long now) {
        return Math.max(0, s.level - (now - s.levelAt));
    }

    @Override
    public synchronized CompletionStage<Decision> peek(Policy policy, String key) {
        String id = policy.name() + "\u0000" + key;
        if (policy.inFlight()) {
            long now = clock.nowMicros();
            int left = Math.max(0, policy.maxInFlight() - live(id, now).size());
            long hint = Math.min(1_000_000L, policy.leaseMicros());
            return CompletableFuture.completedFuture(new Decision(policy, true, -1, 0, now,
                    List.of(new LimitState(policy.limits().get(0), left, left == 0 ? hint : 0))));
        }
        KeyData stored = data.get(id);
        KeyData d = stored == null ? new KeyData() : stored.copy();
        long now = Math.max(clock.nowMicros(), Math.max(d.last, d.lastCharge));
        follow(d, policy, now);
        return CompletableFuture.completedFuture(new Decision(policy, true, -1, 0, now, states(d, policy, now, 0)));
    }

    @Override
    public synchronized CompletionStage<KeyPage> keys(Policy policy, String cursor, int limit) {
        List<String> after = keysByPolicy.getOrDefault(policy.name(), new java.util.TreeSet<>()).stream()
                .filter(k -> cursor.isEmpty() || k.compareTo(cursor) > 0).limit(limit + 1L).toList();
        boolean more = after.size() > limit;
        List<String> page = more ? after.subList(0, limit) : after;
        return CompletableFuture.completedFuture(new KeyPage(page, more ? page.get(page.size() - 1) : null));
    }

    @Override
    public synchronized CompletionStage<Long> count(Policy policy) {
        return CompletableFuture
                .completedFuture((long) keysByPolicy.getOrDefault(policy.name(), new java.util.TreeSet<>()).size());
    }

    @Override
    public synchronized CompletionStage<Void> reset(Policy policy, String key) {
        leases.remove(policy.name() + "\u0000" + key);
        java.util.Set<String> known = keysByPolicy.get(policy.name());
        if (known != null) {
            known.remove(key);
        }
        data.remove(policy.name() + "\u0000" + key);
        learned.remove(policy.name() + "\u0000" + key);
        return CompletableFuture.completedFuture(null);
    }
}
