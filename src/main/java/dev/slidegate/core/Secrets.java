package dev.slidegate.core;

import java.util.regex.Pattern;

/** Keeps credentials out of log lines and error messages: the user-info part of any URI is replaced. */
public final class Secrets {

    // scheme://user:password@host → scheme://***@host (also a password alone: redis://:secret@host)
    private static final Pattern USER_INFO = Pattern.compile("([a-zA-Z][a-zA-Z0-9+.-]*://)[^/@\\s]+@");

    private Secrets() {
    }

    /** {@code text} with the credentials of every URI in it replaced by {@code ***}; {@code null} stays {@code null}. */
    public static String redact(String text) {
        return text == null ? null : USER_INFO.matcher(text).replaceAll("$1***@");
    }
}
