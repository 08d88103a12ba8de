package dev.slidegate.interceptor;

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
final class KeyEncoder {

    static final int MAX_KEPT = 64;

    private KeyEncoder() {
    }

    static String part(String raw) {
        return keepable(raw) ? raw : "#" + Base64.getUrlEncoder().withoutPadding().encodeToString(sha256(raw));
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
