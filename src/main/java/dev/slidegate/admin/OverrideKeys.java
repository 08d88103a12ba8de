package dev.slidegate.admin;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;

import dev.slidegate.config.KeySource;
import dev.slidegate.core.KeyEncoder;

/**
 * The caller key an override names, as the policy counts it. An operator may type a key as the admin
 * listing shows it ({@code hdr:#Qm9…}, {@code ip:2001:db8:1:2::/64}) or as the caller sends it
 * ({@code hdr:bad key}, {@code ip:::1}): a value not yet in its stored form is translated into it (a
 * header value, a user name… made safe as {@code CallerKeys} makes it; an address grouped as the
 * policy groups callers). A key no caller of the policy can have (no kind, a kind its key source never
 * makes, an address that is none) is refused: an override for it would block or exempt nobody.
 */
final class OverrideKeys {

    /** A key in its stored form, and whether it was translated from what was sent. */
    record Canonical(String key, boolean translated) {
    }

    private OverrideKeys() {
    }

    /**
     * @param sent the key as typed
     * @param source the key source of the policy
     * @param clientOf an address as its client is counted, or {@code null} for no address
     * @throws IllegalArgumentException a sentence naming the forms the policy's keys take
     */
    static Canonical canonical(String sent, KeySource source, UnaryOperator<String> clientOf) {
        if (KeyEncoder.encoded(sent) && sent.startsWith("#")) {
            return new Canonical(sent, false); // a key longer than 100 characters, hashed whole: as the listing shows it
        }
        String key;
        if (sent.startsWith("key:") || sent.startsWith("arg:")) { // the RateLimiter API, a @RateLimitKey parameter
            key = sent.substring(0, 4) + value(sent.substring(4), false);
        } else if (source instanceof KeySource.Composite c) {
            String[] parts = sent.split("\\+", -1);
            if (parts.length != c.parts().size()) {
                throw new IllegalArgumentException(wrong(sent, source));
            }
            List<String> each = new ArrayList<>();
            for (int i = 0; i < parts.length; i++) {
                each.add(part(parts[i], c.parts().get(i), clientOf, sent, source));
            }
            key = String.join("+", each);
        } else {
            key = part(sent, source, clientOf, sent, source);
        }
        key = KeyEncoder.bounded(key);
        return new Canonical(key, !key.equals(sent));
    }

    private static String part(String part, KeySource source, UnaryOperator<String> clientOf, String sent, KeySource whole) {
        if (source instanceof KeySource.Global) {
            if (!part.equals("global")) {
                throw new IllegalArgumentException(wrong(sent, whole));
            }
            return part;
        }
        int colon = part.indexOf(':');
        String kind = colon < 0 ? "" : part.substring(0, colon);
        if (!kinds(source).contains(kind)) {
            throw new IllegalArgumentException(wrong(sent, whole));
        }
        String value = part.substring(colon + 1);
        if (kind.equals("ip")) {
            String client = clientOf.apply(value);
            if (client == null) {
                throw new IllegalArgumentException("'" + value + "' in '" + sent + "' is not an IP address: expected e.g. "
                        + "ip:203.0.113.7 or ip:2001:db8::1");
            }
            return "ip:" + KeyEncoder.part(client);
        }
        // header and query values are trimmed before they are counted, custom values are not
        return kind + ":" + value(value, kind.equals("hdr") || kind.equals("qp"));
    }

    /** A value in its stored form: as it is when it already is one, else made safe as a caller's would be. */
    private static String value(String value, boolean trimmed) {
        if (value.isEmpty()) {
            throw new IllegalArgumentException("a key names a value after its kind, e.g. hdr:demo-pro-key");
        }
        return KeyEncoder.encoded(value) ? value : KeyEncoder.part(trimmed ? value.trim() : value);
    }

    /** The kinds of key a single source makes. */
    private static Set<String> kinds(KeySource source) {
        if (source instanceof KeySource.Ip) {
            return Set.of("ip");
        }
        if (source instanceof KeySource.User) {
            return Set.of("user", "ip"); // an anonymous caller is counted by address
        }
        if (source instanceof KeySource.Header) {
            return Set.of("hdr");
        }
        if (source instanceof KeySource.Param) {
            return Set.of("qp");
        }
        if (source instanceof KeySource.Path) {
            return Set.of("path");
        }
        return Set.of("key"); // a KeyResolver bean's value
    }

    private static String wrong(String sent, KeySource source) {
        return "'" + sent + "' is no key of a caller this policy counts: it counts callers by " + source.spec() + ", as "
                + example(source) + " (or key:<value> from the RateLimiter API, arg:<value> from a @RateLimitKey "
                + "parameter), as the key listing shows them";
    }

    private static String example(KeySource source) {
        if (source instanceof KeySource.Composite c) {
            return String.join("+", c.parts().stream().map(OverrideKeys::example).toList());
        }
        if (source instanceof KeySource.Global) {
            return "global";
        }
        if (source instanceof KeySource.Ip) {
            return "ip:<address>";
        }
        if (source instanceof KeySource.User) {
            return "user:<name> (ip:<address> when anonymous)";
        }
        if (source instanceof KeySource.Header h) {
            return "hdr:<" + h.name() + " value>";
        }
        if (source instanceof KeySource.Param p) {
            return "qp:<" + p.name() + " value>";
        }
        if (source instanceof KeySource.Path) {
            return "path:<route>";
        }
        return "key:<value>";
    }
}
