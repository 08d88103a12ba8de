package dev.slidegate.core;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Limit;
import dev.slidegate.api.Policy;

/**
 * The fail mode {@code local} of a {@link FallbackStore}: each policy's share of its limits decided in process, at
 * N ÷ k where k instances are alive (asked for each time), in windows of its own ({@code <policy>#<k>}).
 *
 * <p>
 * A key's local share starts from what the store last said was left of it (issue 56): each instance admits at most
 * ⌊r/k⌋ more in the window where the store, at its last answer here within a window's length, had r left (⌊N/k⌋ per
 * window afterwards), and what it admitted locally is owed to the store, charged at the instant the store answers
 * again, before this instance's next decision there. A store that was late (a stall, a snapshot's fork, a busy
 * machine) and answers again therefore changes no window: what was admitted before, during and after the stall adds
 * up to at most N, up to the staleness of each instance's last answer (docs/operations.md). A store that lost its data
 * (killed without persistence, a failover to a replica that was behind) forgets what it had admitted before: a window
 * that spans that can hold up to 2N. A permit owed for a call the store still answered ({@link AnsweredLate}) and
 * charged there is taken back: it is not charged twice. A local decision reports the share it was made against
 * (N/k), in its RateLimit fields and its problem text alike.
 */
final class LocalShare {

    /** The keys of each policy remembered at most; beyond it the policy's memory starts again (a flood of keys). */
    static final int MAX_REMEMBERED = 100_000;

    private final DecisionStore store;
    private final LimiterStore local;
    private final java.util.function.IntSupplier instances;
    private final java.util.function.LongSupplier now;
    /** Each policy's share, by name (hashing the whole policy record per call would cost more than the lookup saves). */
    private final Map<String, Share> shares = new ConcurrentHashMap<>();
    /** What the store last said of a key (its decision, when it arrived here), per policy name and key. */
    private final Map<String, Map<String, Said>> said = new ConcurrentHashMap<>();
    /** What was admitted here and the store has not been charged yet, by policy name and key. */
    private final Map<String, Owed> owed = new ConcurrentHashMap<>();
    /** The local windows already started from what the store said, since the store last answered for that key. */
    private final Map<String, Boolean> started = new ConcurrentHashMap<>();

    /** A policy at k instances: as reported to callers (its own name, N/k) and as kept in the local store. */
    private record Share(Policy of, int instances, Policy reported, Policy windows) {
    }

    /** The store's last decision of a key here and when it came (nanos of {@code now}); updated in place. */
    private static final class Said {
        volatile Decision decision;
        volatile long atNanos;
    }

    /**
     * Permits admitted here for one key, to be charged to the store when it answers again, once the calls that failed
     * for them have their late answers or none ({@code unanswered}).
     */
    private record Owed(Policy policy, String key, AtomicInteger permits, AtomicReference<CompletableFuture<Void>> unanswered) {

        Owed(Policy policy, String key) {
            this(policy, key, new AtomicInteger(), new AtomicReference<>(CompletableFuture.completedFuture(null)));
        }

        /** Takes back up to {@code permits} not charged yet: the store charged them itself, in a late answer. */
        void chargedByTheStore(int permits) {
            permits().getAndUpdate(p -> p - Math.min(p, permits));
        }
    }

    /**
     * @param store the store the fail mode stands in for, charged what was admitted here
     * @param local where the shares' windows are kept
     * @param instances how many instances share the limits now (below 1 counts as 1)
     * @param now the monotonic clock, in nanoseconds, that dates what the store said
     */
    LocalShare(DecisionStore store, LimiterStore local, java.util.function.IntSupplier instances,
            java.util.function.LongSupplier now) {
        this.store = store;
        this.local = local;
        this.instances = instances;
        this.now = now;
    }

    /**
     * Decides in process, within the policy's share: a rate started from what the store said of the key, or a slot of
     * calls in flight ({@code slot}: nothing of a window is remembered or owed, leases end with their calls). A permit
     * admitted for a rate is owed to the store; {@code late}, the late answer of the call that failed for it, or null.
     */
    CompletionStage<Decision> decide(Policy policy, String key, int cost, long maxWaitMicros, boolean slot,
            AnsweredLate late) {
        Share share = share(policy);
        CompletionStage<Decision> start = slot ? CompletableFuture.completedFuture(null)
                : startFromWhatWasSaid(policy, share, key);
        return start.thenCompose(ignored -> slot ? local.enter(share.windows(), key, maxWaitMicros)
                : local.acquire(share.windows(), key, cost, maxWaitMicros)).thenApply(d -> {
                    if (d.allowed() && !slot && !policy.dryRun()) {
                        owe(policy, key, cost, late);
                    }
                    return new Decision(share.reported(), d.allowed(), d.trippedIndex(), d.retryAfterMicros(), d.atMicros(),
                            d.states(), true, d.waitMicros());
                });
    }

    /** The policy's share as kept in the local store: where holds, leases and settlements made here are. */
    Policy windows(Policy policy) {
        return share(policy).windows();
    }

    /** Keeps the store's decision of a key as the last it said here; no allocation once the key is known. */
    void remember(Policy policy, String key, Decision d) {
        Map<String, Said> keys = said.get(policy.name());
        if (keys == null) {
            keys = said.computeIfAbsent(policy.name(), n -> new ConcurrentHashMap<>());
        }
        Said s = keys.get(key);
        if (s == null) {
            if (keys.size() >= MAX_REMEMBERED) {
                keys.clear(); // bounded: a flood of keys makes the policy's memory start again
            }
            s = keys.computeIfAbsent(key, k -> new Said());
        }
        s.decision = d;
        s.atNanos = now.getAsLong();
        if (!started.isEmpty()) {
            started.remove(id(policy.name(), key)); // the next fail-over starts from this answer
        }
    }

    /** Whether anything admitted here for the key is still owed to the store. */
    boolean owes(Policy policy, String key) {
        return !owed.isEmpty() && owed.containsKey(id(policy.name(), key));
    }

    /**
     * Charges the store what is owed for the key, before the key's next decision there; null when nothing is owed (its
     * policy and key were checked when the permits were admitted). Never fails.
     */
    CompletionStage<Void> chargeOwed(Policy policy, String key) {
        Owed mine = owed.isEmpty() ? null : owed.remove(id(policy.name(), key));
        return mine == null ? null : chargeOwed(mine);
    }

    /** Charges the store everything owed, now that it answered. */
    void chargeAllOwed() {
        if (owed.isEmpty()) {
            return;
        }
        owed.values().forEach(o -> {
            if (owed.remove(id(o.policy().name(), o.key()), o)) {
                chargeOwed(o);
            }
        });
    }

    /** Forgets the key's local window, what the store said of it and what is owed for it (a reset). */
    void forget(Policy policy, String key) {
        local.reset(share(policy).windows(), key);
        Map<String, Said> keys = said.get(policy.name());
        if (keys != null) {
            keys.remove(key);
        }
        owed.remove(id(policy.name(), key));
        started.remove(id(policy.name(), key));
    }

    private static String id(String policy, String key) {
        return policy + '\u0000' + key;
    }

    /**
     * The first local decision of a key since the store last answered for it: its local window is charged what the
     * store said was used, so the share left there is what the store had left divided among the instances (⌊r/k⌋ per
     * limit), not a fresh N/k. Said within a window's length only: an older answer says nothing of the window now.
     */
    private CompletionStage<Decision> startFromWhatWasSaid(Policy policy, Share share, String key) {
        Map<String, Said> keys = said.get(policy.name());
        Said s = keys == null ? null : keys.get(key);
        if (s == null || started.putIfAbsent(id(policy.name(), key), Boolean.TRUE) != null) {
            return CompletableFuture.completedFuture(null);
        }
        if (started.size() > MAX_REMEMBERED) {
            started.clear();
        }
        Decision d = s.decision;
        long age = (now.getAsLong() - s.atNanos) / 1000;
        if (d == null || !d.policy().limits().equals(policy.limits()) || age >= policy.maxWindowMicros()) {
            return CompletableFuture.completedFuture(null);
        }
        int k = share.instances();
        int charge = 0;
        for (int i = 0; i < d.states().size() && i < share.windows().limits().size(); i++) {
            int shareN = share.windows().limits().get(i).permits();
            long left = Math.max(0, d.states().get(i).remaining()) / k;
            charge = (int) Math.max(charge, Math.min(shareN, shareN - left));
        }
        if (charge <= 0) {
            return CompletableFuture.completedFuture(null);
        }
        return local.acquire(chargingEvenRefused(share.windows()), key, charge, 0);
    }

    /** {@code p} charging a call whatever room is left ({@code count-rejected}), enforcing, without a wait. */
    private static Policy chargingEvenRefused(Policy p) {
        return new Policy(p.name(), p.limits(), p.strategy(), p.key(), true, false, p.cells(), p.failMode(), 0, p.unit());
    }

    /**
     * Owes the store {@code cost} permits of a key; {@code late}: the late answer of the call that failed for them,
     * which, should it say the store charged them after all, takes them back before they are charged.
     */
    private void owe(Policy policy, String key, int cost, AnsweredLate late) {
        String id = id(policy.name(), key);
        Owed o = owed.get(id);
        if (o == null) {
            if (owed.size() >= MAX_REMEMBERED) {
                return; // bounded: beyond it a key's local admissions are not charged back (docs/operations.md)
            }
            o = owed.computeIfAbsent(id, i -> new Owed(policy, key));
        }
        o.permits().addAndGet(cost);
        if (late != null) {
            Owed of = o;
            CompletableFuture<Void> heard = late.lateAnswer().toCompletableFuture().handle((answer, error) -> {
                if (answer instanceof Decision d && (d.allowed() || policy.countRejected())) {
                    of.chargedByTheStore(cost);
                }
                return null;
            });
            // bounded: an answer is listened for one budget, so a long outage's probes find the one before done
            o.unanswered().getAndUpdate(before -> before.isDone() ? heard : CompletableFuture.allOf(before, heard));
        }
    }

    /**
     * Charges the store what was admitted here for one key while it could not answer: as refused attempts are charged
     * under {@code count-rejected}, whatever room is left, at the instant the store answers (later than the calls ran:
     * their permits count there longer, never shorter), once the late answers of the calls that failed for them are in.
     * Never fails: a charge the store cannot take is owed again.
     */
    private CompletionStage<Void> chargeOwed(Owed o) {
        return o.unanswered().get().thenCompose(heard -> chargeNow(o));
    }

    private CompletionStage<Void> chargeNow(Owed o) {
        int permits = o.permits().getAndSet(0);
        if (permits <= 0) {
            return CompletableFuture.completedFuture(null);
        }
        Policy p = o.policy();
        int cost = Math.min(permits, p.maxPermits());
        CompletionStage<Decision> sent;
        try {
            sent = store.acquire(chargingEvenRefused(p), o.key(), cost, 0);
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        return sent.handle((d, error) -> {
            if (error != null) {
                owe(p, o.key(), permits, null);
            }
            return null;
        });
    }

    /**
     * This instance's share of a policy: every N divided by the number of instances (at least 1 each). The local windows
     * of each share are its own ({@code <policy>#<k>}): windows kept at another share must not decide at this one.
     */
    private Share share(Policy p) {
        int k = Math.max(1, instances.getAsInt());
        Share s = shares.get(p.name());
        if (s == null || !s.of().equals(p) || s.instances() != k) {
            List<Limit> limits = p.limits().stream()
                    .map(l -> new Limit(Math.max(1, l.permits() / k), l.windowMicros(), l.periods()))
                    .toList();
            Policy reported = k == 1 ? p : p.withLimits(limits);
            Policy windows = p.withLimits(limits).withName(localName(p.name(), k));
            s = new Share(p, k, reported, windows);
            shares.put(p.name(), s);
        }
        return s;
    }

    private static String localName(String policy, int k) {
        String suffix = "#" + k;
        return (policy.length() + suffix.length() > 64 ? policy.substring(0, 64 - suffix.length()) : policy) + suffix;
    }
}
