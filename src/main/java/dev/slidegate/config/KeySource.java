package dev.slidegate.config;

import java.util.regex.Pattern;

/**
 * Where a policy takes the caller's key from. Parsed once per policy from {@code ip}, {@code user},
 * {@code global} or {@code header:<Name>}.
 */
public sealed interface KeySource {

    /** What a valid key source looks like, for error messages. */
    String EXPECTED = "ip, user, global or header:<Name>";

    /** The configuration spelling: {@code ip}, {@code header:X-Api-Key}. */
    String spec();

    /** The TCP peer address. */
    record Ip() implements KeySource {
        @Override
        public String spec() {
            return "ip";
        }
    }

    /** The authenticated principal's name; anonymous callers fall back to {@link Ip}. */
    record User() implements KeySource {
        @Override
        public String spec() {
            return "user";
        }
    }

    /** One key shared by every caller. */
    record Global() implements KeySource {
        @Override
        public String spec() {
            return "global";
        }
    }

    /** The value of a request header; a request without it is refused with 400. */
    record Header(String name) implements KeySource {
        @Override
        public String spec() {
            return "header:" + name;
        }
    }

    /** RFC 9110 token characters: what a header name may be made of. */
    Pattern HEADER_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}");

    /**
     * Parses a configured key source.
     *
     * @throws IllegalArgumentException naming what would be valid
     */
    static KeySource parse(String text) {
        String t = text == null ? "" : text.trim();
        switch (t) {
            case "ip":
                return new Ip();
            case "user":
                return new User();
            case "global":
                return new Global();
            default:
                if (t.startsWith("header:")) {
                    String name = t.substring("header:".length()).trim();
                    if (HEADER_NAME.matcher(name).matches()) {
                        return new Header(name);
                    }
                    throw new IllegalArgumentException("'" + text + "' names no valid header: expected header:<Name> with a header name such as X-Api-Key");
                }
                throw new IllegalArgumentException("'" + text + "' is not a key source: expected " + EXPECTED);
        }
    }
}
