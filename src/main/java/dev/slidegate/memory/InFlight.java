package dev.slidegate.memory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import dev.slidegate.api.Decision;
import dev.slidegate.api.LimitState;
import dev.slidegate.api.Policy;
import dev.slidegate.core.DecisionStore;
import dev.slidegate.core.InFlightSlots;

/**
 * The leases of one {@link dev.slidegate.api.Strategy#CONCURRENCY} policy in process: per key, its live leases by name
 * with the instant each expires unless renewed. A key holds state only while it has a lease (the last one to end
 * removes it), and at most {@code maxKeys} keys hold leases at once: beyond that a new key is refused (the store says
 * so), since a shared overflow set could not tell whose lease a late release names.
 */
final class InFlight {

    /** The leases of one key; guarded by its monitor. A removed one is retired: a caller holding it looks the key up again. */
    private static final class Leases {
        /** Name (the instant granted) to the instant it expires: live while now is before it. */
        final Map<Long, Long> expiries = new HashMap<>();
        /** No lease expires before this: pruning is skipped until then. */
        long soonest = Long.MAX_VALUE;
        /** The newest name granted: names never repeat, so a late release never ends another call's lease. */
        long lastName = Long.MIN_VALUE;
        /** Calls waiting for a slot: ticket (arrival order) to the instant it lapses unless named again. */
        final java.util.TreeMap<Long, Long> waiting = new java.util.TreeMap<>();
        long lastTicket = Long.MIN_VALUE;
        boolean retired;

        /** The tickets waiting now (lapsed ones dropped). */
        int waiting(long now) {
            if (!waiting.isEmpty()) {
                waiting.values().removeIf(lapse -> lapse <= now);
            }
            return waiting.size();
        }

        boolean idle(long now) {
            return live(now) == 0 && waiting(now) == 0;
        }

        int live(long now) {
            if (now >= soonest) {
                soonest = Long.MAX_VALUE;
                for (Iterator<Long> it = expiries.values().iterator(); it.hasNext();) {
                    long expiry = it.next();
                    if (expiry <= now) {
                        it.remove();
                    } else {
                        soonest = Math.min(soonest, expiry);
                    }
                }
            }
            return expiries.size();
        }

        long oldest() {
            long oldest = Long.MAX_VALUE;
            for (long name : expiries.keySet()) {
                oldest = Math.min(oldest, name);
            }
            return oldest;
        }
    }

    private final ConcurrentHashMap<String, Leases> keys = new ConcurrentHashMap<>();
    private final AtomicInteger count = new AtomicInteger();
    private final int maxKeys;

    InFlight(int maxKeys) {
        this.maxKeys = maxKeys;
    }

    /**
     * Admits a call of {@code key} when fewer than the policy's N leases are live, recording a lease for its lease time
     * from {@code now}; {@code null} when the key has no leases and the store already holds {@code maxKeys} keys in
     * flight (the caller refuses and says so).
     */
    Decision enter(Policy policy, String key, long now) {
        long hint = InFlightSlots.inFlightRetryMicros(policy);
        int n = policy.maxInFlight();
        while (true) {
            Leases leases = leasesOf(key, now);
            if (leases == null) {
                return null;
            }
            synchronized (leases) {
                if (leases.retired) {
                    continue;
                }
                int live = leases.live(now) + leases.waiting(now); // calls queued for a slot come first
                if (live >= n) {
                    return new Decision(policy, false, 0, hint, now, List.of(new LimitState(policy.limits().get(0), 0, hint)));
                }
                long name = grant(leases, policy, now);
                int left = n - live - 1;
                return new Decision(policy, true, -1, 0, name,
                        List.of(new LimitState(policy.limits().get(0), left, left == 0 ? hint : 0)));
            }
        }
    }

    /**
     * The state of {@code key}, made when it has none; {@code null} when the store already holds {@code maxKeys} keys in
     * flight. The caller checks it is not retired under its monitor.
     */
    private Leases leasesOf(String key, long now) {
        Leases leases = keys.get(key);
        if (leases != null) {
            return leases;
        }
        if (count.get() >= maxKeys && !sweep(now)) {
            return null; // (calls racing here may pass the bound by a few: it bounds memory, not a limit)
        }
        Leases created = new Leases();
        leases = keys.putIfAbsent(key, created);
        if (leases == null) {
            count.incrementAndGet();
            leases = created;
        }
        return leases;
    }

    private static long grant(Leases leases, Policy policy, long now) {
        long name = Math.max(now, leases.lastName + 1);
        long expiry = now + policy.leaseMicros();
        leases.lastName = name;
        leases.expiries.put(name, expiry);
        leases.soonest = Math.min(leases.soonest, expiry);
        return name;
    }

    /**
     * Queues calls of {@code key} for a slot or asks again for them ({@link DecisionStore#queue}); {@code null} when the
     * key is new and the store already holds {@code maxKeys} keys (the callers are refused).
     */
    DecisionStore.Turn queue(Policy policy, String key, List<Long> tickets, long lapseMicros, long now) {
        while (true) {
            Leases leases = leasesOf(key, now);
            if (leases == null) {
                return null;
            }
            synchronized (leases) {
                if (leases.retired) {
                    continue;
                }
                int live = leases.live(now);
                leases.waiting(now);
                List<Long> named = new ArrayList<>(tickets.size());
                for (long t : tickets) {
                    long ticket = t != 0 ? t : Math.max(now, leases.lastTicket + 1);
                    leases.lastTicket = Math.max(leases.lastTicket, ticket);
                    leases.waiting.put(ticket, now + lapseMicros); // a lapsed ticket named again takes its place back
                    named.add(ticket);
                }
                Long[] granted = new Long[named.size()];
                int free = policy.maxInFlight() - live;
                for (java.util.Iterator<Long> it = leases.waiting.keySet().iterator(); it.hasNext() && free > 0; free--) {
                    int at = named.indexOf(it.next());
                    if (at >= 0) {
                        it.remove();
                        granted[at] = grant(leases, policy, now);
                        live++;
                    }
                }
                List<Long> names = new ArrayList<>(named.size());
                for (Long g : granted) {
                    names.add(g == null ? 0L : g);
                }
                return new DecisionStore.Turn(named, names,
                        Math.max(0, policy.maxInFlight() - live - leases.waiting.size()), now);
            }
        }
    }

    /** Takes tickets out of {@code key}'s queue. */
    void unqueue(String key, List<Long> tickets, long now) {
        Leases leases = keys.get(key);
        if (leases == null) {
            return;
        }
        synchronized (leases) {
            if (!leases.retired) {
                tickets.forEach(leases.waiting::remove);
                if (leases.idle(now)) {
                    retire(key, leases);
                }
            }
        }
    }

    /** Drops keys whose leases all expired; whether that left room for one more. */
    private boolean sweep(long now) {
        keys.forEach((key, leases) -> {
            synchronized (leases) {
                if (!leases.retired && leases.idle(now)) {
                    retire(key, leases);
                }
            }
        });
        return count.get() < maxKeys;
    }

    private void retire(String key, Leases leases) {
        leases.retired = true;
        if (keys.remove(key, leases)) {
            count.decrementAndGet();
        }
    }

    /**
     * Renews ({@code leaseMicros} > 0: until {@code now + leaseMicros}) or ends ({@code leaseMicros} 0) the named leases
     * of {@code key}; returns those no longer held.
     */
    List<Long> renewOrEnd(String key, List<Long> names, long now, long leaseMicros) {
        Leases leases = keys.get(key);
        if (leases == null) {
            return List.copyOf(names);
        }
        List<Long> lost = new ArrayList<>(0);
        synchronized (leases) {
            if (leases.retired) {
                return List.copyOf(names);
            }
            leases.live(now);
            for (Long name : names) {
                boolean held = leaseMicros > 0 ? leases.expiries.replace(name, now + leaseMicros) != null
                        : leases.expiries.remove(name) != null;
                if (!held) {
                    lost.add(name);
                }
            }
            if (leases.idle(now)) {
                retire(key, leases);
            }
        }
        return lost;
    }

    /** Where {@code key} stands: its leases live now (N minus them remaining), as a decision that charged nothing. */
    Decision peek(Policy policy, String key, long now) {
        int live = live(key, now);
        int left = Math.max(0, policy.maxInFlight() - live);
        return new Decision(policy, true, -1, 0, now,
                List.of(new LimitState(policy.limits().get(0), left,
                        left == 0 ? InFlightSlots.inFlightRetryMicros(policy) : 0)));
    }

    /** The leases of {@code key} live now. */
    int live(String key, long now) {
        Leases leases = keys.get(key);
        if (leases == null) {
            return 0;
        }
        synchronized (leases) {
            return leases.retired ? 0 : leases.live(now);
        }
    }

    /** The name (the instant granted) of the oldest lease of {@code key} live now, {@code Long.MAX_VALUE} when none. */
    long oldest(String key, long now) {
        Leases leases = keys.get(key);
        if (leases == null) {
            return Long.MAX_VALUE;
        }
        synchronized (leases) {
            return leases.retired || leases.live(now) == 0 ? Long.MAX_VALUE : leases.oldest();
        }
    }

    /** Ends every lease of {@code key}. */
    void reset(String key) {
        Leases leases = keys.get(key);
        if (leases != null) {
            synchronized (leases) {
                if (!leases.retired) {
                    retire(key, leases);
                }
            }
        }
    }

    /** The keys with a lease live now. */
    List<String> keysInFlight(long now) {
        List<String> live = new ArrayList<>();
        keys.keySet().forEach(k -> {
            if (live(k, now) > 0) {
                live.add(k);
            }
        });
        return live;
    }
}
