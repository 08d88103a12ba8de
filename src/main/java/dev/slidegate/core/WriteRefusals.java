package dev.slidegate.core;

/**
 * Redis answering but refusing to write (a read-only replica, out of memory, a failed snapshot, a
 * missing or wrong password) is an outage like silence: every decision script writes. This names the
 * cause and the fix in one sentence, for the log line that says Redis is skipped and for readiness.
 */
public final class WriteRefusals {

    private WriteRefusals() {
    }

    /**
     * Whether {@code error} is Redis refusing a write for lack of memory ({@code maxmemory} reached under
     * {@code noeviction}). Unlike the other refusals, that is not an outage of every decision: Redis still
     * decides whatever needs no new memory (the windows it holds refuse on), so it is one decision's
     * failure, not the store's.
     */
    public static boolean outOfMemory(Throwable error) {
        String m = error == null ? null : error.getMessage();
        return m != null && m.contains("OOM ");
    }

    /** A sentence naming why Redis refuses writes and what fixes it, or {@code null} for any other error. */
    public static String explain(String error) {
        if (error == null) {
            return null;
        }
        if (error.contains("READONLY")) {
            return "Redis is a read-only replica and refuses writes: point quarkus.redis.hosts at the primary";
        }
        if (error.contains("OOM ")) {
            return "Redis is out of memory (maxmemory reached, and its maxmemory-policy frees nothing for writes): "
                    + "raise maxmemory, or set maxmemory-policy volatile-ttl so expiring windows make room";
        }
        if (error.contains("MISCONF")) {
            return "Redis refuses writes because it cannot save its snapshot (MISCONF): fix its disk or persistence settings";
        }
        if (error.contains("NOAUTH")) {
            return "Redis wants a password: set quarkus.redis.password (or give it in quarkus.redis.hosts)";
        }
        if (error.contains("WRONGPASS") || error.contains("invalid password")) {
            return "Redis refuses the user name or password: check quarkus.redis.password (or the one in quarkus.redis.hosts)";
        }
        return null;
    }
}
