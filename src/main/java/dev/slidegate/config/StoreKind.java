package dev.slidegate.config;

import java.util.Locale;

/** Where windows are kept ({@code slidegate.store}). */
public enum StoreKind {
    /** Redis when Slidegate's Redis client has hosts (and the service has the Redis client extension), else memory. */
    AUTO,
    /** This process only. */
    MEMORY,
    /** Shared by every instance through Redis. */
    REDIS;

    /** Reads {@code auto}, {@code memory} or {@code redis}, in any case. */
    public static StoreKind parse(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        for (StoreKind k : values()) {
            if (k.name().toLowerCase(Locale.ROOT).equals(t)) {
                return k;
            }
        }
        throw new IllegalArgumentException("'" + text + "' is not a store: expected auto, memory or redis");
    }

    /** As it is written in configuration. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
