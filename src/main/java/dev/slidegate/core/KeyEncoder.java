package dev.slidegate.core;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * Makes caller-supplied text safe to put in a store key. Text of at most 64 characters from
 * {@code [A-Za-z0-9._~:@/-]} is kept as it is; anything else becomes {@code #} and the base64url
 * SHA-256 of its UTF-8 bytes. Since {@code #} is outside the kept set, a kept value never equals a
 * hashed one, and no key part contains {@code {}, {@code }} or the composite separator.
 */
public final class KeyEncoder {

    public static final int MAX_KEPT = 64;
    /** The longest caller key; a longer one is hashed as a whole, so a Redis key stays under 200 bytes. */
    public static final int MAX_KEY = 100;
    /** The length of a hashed value: {@code #} and 43 base64url characters. */
    private static final int HASHED = 44;

    private KeyEncoder() {
    }

    public static String part(String raw) {
        return keepable(raw) ? raw : "#" + Base64.getUrlEncoder().withoutPadding().encodeToString(sha256(raw));
    }

    /** {@code key} as it is when at most {@link #MAX_KEY} characters, else hashed as a whole. */
    public static String bounded(String key) {
        return key.length() <= MAX_KEY ? key : part(key);
    }

    /** Whether {@code value} is what {@link #part} makes of some text: kept, or hashed. */
    public static boolean encoded(String value) {
        if (keepable(value)) {
            return true;
        }
        if (value.length() != HASHED || value.charAt(0) != '#') {
            return false;
        }
        for (int i = 1; i < HASHED; i++) {
            char c = value.charAt(i);
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_')) {
                return false;
            }
        }
        return true;
    }

    private static boolean keepable(String s) {
        if (s.isEmpty() || s.length() > MAX_KEPT) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '.' || c == '_' || c == '~' || c == ':' || c == '@' || c == '-' || c == '/';
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is not available", e);
        }
    }
}
