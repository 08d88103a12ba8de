package dev.slidegate.admin;

import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;

/**
 * How each policy moved over the last minutes, for the live page's charts: what this instance admitted and refused in
 * each bucket of {@link #BUCKET_MS}, and how many calls it held waiting when the bucket was sampled, over the last
 * {@link #BUCKETS} buckets (5 minutes). Sampled every bucket from the counters the decisions keep anyway (a timer of
 * the admin, only when the admin is on), so a decision pays nothing for it.
 */
final class Trends {

    static final int BUCKETS = 30;
    static final long BUCKET_MS = 10_000;

    private final Map<String, Ring> rings = new ConcurrentHashMap<>();

    /** One policy's buckets, the oldest first; guarded by its monitor. */
    private static final class Ring {
        final long[] admitted = new long[BUCKETS];
        final long[] refused = new long[BUCKETS];
        final long[] waiting = new long[BUCKETS];
        long bucket;
        long lastAdmitted;
        long lastRefused;

        Ring(long bucket, long admitted, long refused) {
            this.bucket = bucket;
            this.lastAdmitted = admitted;
            this.lastRefused = refused;
        }

        synchronized void sample(long bucketNow, long admittedNow, long refusedNow, int waitingNow) {
            long steps = Math.min(BUCKETS, Math.max(0, bucketNow - bucket));
            if (steps > 0) {
                shift(admitted, (int) steps);
                shift(refused, (int) steps);
                shift(waiting, (int) steps);
                bucket = bucketNow;
            }
            admitted[BUCKETS - 1] += Math.max(0, admittedNow - lastAdmitted);
            refused[BUCKETS - 1] += Math.max(0, refusedNow - lastRefused);
            waiting[BUCKETS - 1] = Math.max(waiting[BUCKETS - 1], waitingNow);
            lastAdmitted = admittedNow;
            lastRefused = refusedNow;
        }

        private static void shift(long[] a, int steps) {
            System.arraycopy(a, steps, a, 0, BUCKETS - steps);
            java.util.Arrays.fill(a, BUCKETS - steps, BUCKETS, 0);
        }

        synchronized AdminViews.TrendView view(long bucketNow, long admittedNow, long refusedNow, int waitingNow) {
            sample(bucketNow, admittedNow, refusedNow, waitingNow);
            return new AdminViews.TrendView((int) (BUCKET_MS / 1000), admitted.clone(), refused.clone(), waiting.clone());
        }
    }

    /** Samples every policy's counters now: what they counted since the last sample goes to the current bucket. */
    void sample(long nowMillis, Collection<String> policies, ToLongFunction<String> admitted, ToLongFunction<String> refused,
            ToIntFunction<String> waiting) {
        long bucket = nowMillis / BUCKET_MS;
        for (String p : policies) {
            Ring r = rings.get(p);
            if (r == null) { // the first sample of a policy is where its counting starts
                rings.put(p, new Ring(bucket, admitted.applyAsLong(p), refused.applyAsLong(p)));
                continue;
            }
            r.sample(bucket, admitted.applyAsLong(p), refused.applyAsLong(p), waiting.applyAsInt(p));
        }
    }

    /**
     * A policy's last {@link #BUCKETS} buckets, the oldest first, the current one with what its counters say now; all
     * zero before its first sample.
     */
    AdminViews.TrendView view(String policy, long nowMillis, long admitted, long refused, int waiting) {
        Ring r = rings.get(policy);
        if (r == null) {
            rings.putIfAbsent(policy, new Ring(nowMillis / BUCKET_MS, admitted, refused));
            return new AdminViews.TrendView((int) (BUCKET_MS / 1000), new long[BUCKETS], new long[BUCKETS], new long[BUCKETS]);
        }
        return r.view(nowMillis / BUCKET_MS, admitted, refused, waiting);
    }
}
