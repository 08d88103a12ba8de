package dev.slidegate.config;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Where a policy takes the caller's key from. Parsed once per policy from {@code ip}, {@code user},
 * {@code global}, {@code path}, {@code header:<Name>}, {@code param:<name>}, the name of a
 * {@code @Named} {@code KeyResolver} bean, or a composite of several joined by {@code +}
 * ({@code ip+path}, {@code user+header:X-Tenant}).
 */
public sealed interface KeySource {

    /** What a valid key source looks like, for error messages. */
    String EXPECTED = "ip, user, global, path, header:<Name>, param:<name>, client (REST clients), the name of a @Named KeyResolver bean, or several joined by +";

    /** The configuration spelling: {@code ip}, {@code header:X-Api-Key}, {@code ip+path}. */
    String spec();

    /**
     * Whether the key can be found from the HTTP request alone, before the endpoint is dispatched:
     * without the call's arguments, and without the caller's identity, which may not be established
     * yet (and finding it may block).
     */
    boolean fromRequestAlone();

    /** The client address (TCP peer, or the forwarded client behind a trusted proxy). */
    record Ip() implements KeySource {
        @Override
        public String spec() {
            return "ip";
        }

        @Override
        public boolean fromRequestAlone() {
            return true;
        }
    }

    /** The authenticated principal's name; anonymous callers fall back to {@link Ip}. */
    record User() implements KeySource {
        @Override
        public String spec() {
            return "user";
        }

        @Override
        public boolean fromRequestAlone() {
            return false;
        }
    }

    /** One key shared by every caller. */
    record Global() implements KeySource {
        @Override
        public String spec() {
            return "global";
        }

        @Override
        public boolean fromRequestAlone() {
            return true;
        }
    }

    /**
     * The REST client a call goes out through (its {@code configKey}, else its interface's name): one quota per upstream.
     * Only for {@code @RateLimited} on a REST Client interface, where it is the default.
     */
    record Client() implements KeySource {
        @Override
        public String spec() {
            return "client";
        }

        @Override
        public boolean fromRequestAlone() {
            return false;
        }
    }

    /** The endpoint's route template, so {@code /api/products/1} and {@code /api/products/2} are one key. */
    record Path() implements KeySource {
        @Override
        public String spec() {
            return "path";
        }

        @Override
        public boolean fromRequestAlone() {
            return true;
        }
    }

    /** The value of a request header; a request without it is refused with 400. */
    record Header(String name) implements KeySource {
        @Override
        public String spec() {
            return "header:" + name;
        }

        @Override
        public boolean fromRequestAlone() {
            return true;
        }
    }

    /** The value of a query parameter; a request without it is refused with 400. */
    record Param(String name) implements KeySource {
        @Override
        public String spec() {
            return "param:" + name;
        }

        @Override
        public boolean fromRequestAlone() {
            return true;
        }
    }

    /** What the {@code @Named} {@code KeyResolver} bean of this name returns. */
    record Named(String name) implements KeySource {
        @Override
        public String spec() {
            return name;
        }

        @Override
        public boolean fromRequestAlone() {
            return false; // a resolver may read the arguments
        }
    }

    /** Several sources, all of which must agree for two calls to count together. */
    record Composite(List<KeySource> parts) implements KeySource {
        @Override
        public String spec() {
            return parts.stream().map(KeySource::spec).collect(Collectors.joining("+"));
        }

        @Override
        public boolean fromRequestAlone() {
            return parts.stream().allMatch(KeySource::fromRequestAlone);
        }
    }

    /** RFC 9110 token characters: what a header name may be made of. */
    Pattern HEADER_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}");
    /** Query parameter names we accept. */
    Pattern PARAM_NAME = Pattern.compile("[A-Za-z0-9._~-]{1,128}");
    /** CDI bean names we accept. */
    Pattern BEAN_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_.$-]{0,127}");

    /**
     * Parses a configured key source.
     *
     * @throws IllegalArgumentException naming what would be valid
     */
    static KeySource parse(String text) {
        String t = text == null ? "" : text.trim();
        if (t.indexOf('+') < 0 || t.startsWith("header:")) {
            return single(t, text);
        }
        List<KeySource> parts = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (String part : t.split("\\+", -1)) {
            KeySource k = single(part.trim(), text);
            if (k instanceof Global) {
                throw new IllegalArgumentException(
                        "'" + text + "' combines global with other sources: global alone means everyone together");
            }
            if (!seen.add(k.spec())) {
                throw new IllegalArgumentException("'" + text + "' names " + k.spec() + " twice");
            }
            parts.add(k);
        }
        return new Composite(List.copyOf(parts));
    }

    private static KeySource single(String t, String whole) {
        switch (t) {
            case "ip":
                return new Ip();
            case "user":
                return new User();
            case "global":
                return new Global();
            case "path":
                return new Path();
            case "client":
                return new Client();
            default:
                if (t.startsWith("header:")) {
                    String name = t.substring("header:".length()).trim();
                    if (HEADER_NAME.matcher(name).matches() && name.indexOf('+') < 0) {
                        return new Header(name);
                    }
                    throw new IllegalArgumentException("'" + whole
                            + "' names no valid header: expected header:<Name> with a header name such as X-Api-Key");
                }
                if (t.startsWith("param:")) {
                    String name = t.substring("param:".length()).trim();
                    if (PARAM_NAME.matcher(name).matches()) {
                        return new Param(name);
                    }
                    throw new IllegalArgumentException(
                            "'" + whole + "' names no valid query parameter: expected param:<name>, e.g. param:tenant");
                }
                if (BEAN_NAME.matcher(t).matches()) {
                    return new Named(t);
                }
                throw new IllegalArgumentException("'" + whole + "' is not a key source: expected " + EXPECTED);
        }
    }
}
