package dev.slidegate.engine;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.jboss.logging.Logger;

/**
 * What Slidegate says in its log because of an upstream ({@link Upstreams}), bounded: a hostile upstream cannot flood it.
 * What an upstream sent that could not be applied is said once per policy and kind, at most {@value #MAX_PROBLEMS_LOGGED}
 * kinds; a hold once while it lasts, for at most {@code slidegate.upstream.max-keys} keys at once (the metric counts the
 * rest). A tenant's key is shown as a fingerprint only ({@link #shown}).
 */
final class UpstreamLog {

    /** The category of every line an upstream makes Slidegate log. */
    static final Logger LOG = Logger.getLogger("dev.slidegate.upstream");
    /** Distinct problems logged per policy at most (after that, none). */
    private static final int MAX_PROBLEMS_LOGGED = 20;

    private final int maxKeys;
    private final Map<String, Set<String>> problemsLogged = new ConcurrentHashMap<>();
    /** Until when (epoch ms) a hold was last logged, per policy and key: one line per hold, not per 429. */
    private final Map<String, Long> holdLogged = new ConcurrentHashMap<>();

    UpstreamLog(int maxKeys) {
        this.maxKeys = maxKeys;
    }

    /** Says once per policy and kind that its upstream sent {@code problem}. */
    void problem(String policy, String problem) {
        Set<String> logged = problemsLogged.computeIfAbsent(policy, p -> ConcurrentHashMap.newKeySet());
        String kind = problem.length() > 60 ? problem.substring(0, 60) : problem;
        if (logged.size() < MAX_PROBLEMS_LOGGED && logged.add(kind)) {
            LOG.warnf("Policy '%s': its upstream sent %s (said once)", policy, problem);
        }
    }

    /** Says that a hold of {@code key} could not be made in the store. */
    void notHeld(String policy, String key, long forMicros, String why, Throwable error) {
        LOG.warnf("Policy '%s' could not hold the calls of %s for %d ms (its upstream %s): %s", policy, shown(key),
                forMicros / 1000, why, error.getMessage());
    }

    /** Says that {@code key} is held until {@code untilMillis} (epoch), unless a line said so already for this hold. */
    void held(String policy, String key, long untilMillis, long heldForMicros, String why, long nowMillis) {
        String id = Upstreams.id(policy, key);
        Long before = holdLogged.get(id);
        if (before != null && before >= nowMillis) {
            holdLogged.computeIfPresent(id, (k, v) -> Math.max(v, untilMillis));
            return;
        }
        if (before == null && holdLogged.size() >= maxKeys) {
            holdLogged.values().removeIf(v -> v < nowMillis); // holds that ended
            if (holdLogged.size() >= maxKeys) {
                return; // as many keys held at once as keys learned: the metric counts the rest
            }
        }
        holdLogged.put(id, untilMillis);
        LOG.infof("Policy '%s' holds every call of %s for %d ms, on every instance sharing the store: its upstream %s",
                policy, shown(key), heldForMicros / 1000, why);
    }

    /**
     * A key for a log line: the client's or the global one as it is; a tenant's (which may be a credential, for one
     * quota per tenant's credentials) as a fingerprint only, {@code key #1a2b3c4d}: the admin shows keys to operators.
     */
    static String shown(String key) {
        if (key.startsWith("client:") || key.equals("global")) {
            return "key '" + key + "'";
        }
        try {
            byte[] d = java.security.MessageDigest.getInstance("SHA-256")
                    .digest(key.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return "key #" + java.util.HexFormat.of().formatHex(d, 0, 4);
        } catch (java.security.NoSuchAlgorithmException e) {
            return "a key";
        }
    }
}
