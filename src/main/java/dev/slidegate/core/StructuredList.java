package dev.slidegate.core;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A reader of the structured list fields upstreams send ({@code RateLimit}, {@code RateLimit-Policy}: RFC 9651 lists of
 * items with parameters), written by hand: one pass over the text, no regular expression, no recursion, so a field of any
 * shape costs time in proportion to its length and a constant stack (issue 56: a repeated group in a pattern recursed
 * once per repetition and overflowed the event loop's stack).
 *
 * <p>
 * It reads what upstreams write rather than all of RFC 9651: an item is a quoted string or a token (its name), followed
 * by parameters {@code ;key} or {@code ;key=value}, a value being a quoted string (kept with its quotes) or anything up
 * to the next {@code ;} or {@code ,}. An item that does not read so is skipped to the next comma outside quotes and
 * handed to the caller's problem sink.
 */
final class StructuredList {

    /** One item: its name ({@code default} when empty) and its parameters, values trimmed, {@code ?1} for a bare key. */
    record Item(String name, Map<String, String> params) {
    }

    private StructuredList() {
    }

    /**
     * Reads the items of one line into {@code into}: at most {@code maxItems} members, read or not, and
     * {@code maxParams} parameters each (further ones are skipped without a word: they cannot change what is read of the
     * first).
     *
     * @param bad receives the text of each item that does not read
     * @return how many members were taken, read or not
     */
    static int parse(String line, int maxItems, int maxParams, List<Item> into, Consumer<String> bad) {
        int n = line.length();
        int i = 0;
        int read = 0;
        while (i < n && read < maxItems) {
            int start = i;
            i = skipSpaces(line, i);
            if (i >= n) {
                return read;
            }
            if (line.charAt(i) == ',') { // an empty member: nothing to read
                i++;
                continue;
            }
            Map<String, String> params = new LinkedHashMap<>();
            String[] name = new String[1];
            int end = item(line, i, maxParams, name, params);
            if (end >= 0) {
                end = skipSpaces(line, end);
            }
            if (end >= 0 && (end >= n || line.charAt(end) == ',')) {
                into.add(new Item(name[0].isEmpty() ? "default" : name[0], params));
                read++;
                i = end + 1;
            } else {
                int next = nextComma(line, start);
                bad.accept(line.substring(start, next).trim());
                read++; // an item that does not read counts too: a field of a thousand bad items says sixteen
                i = next + 1;
            }
        }
        return read;
    }

    /** Reads one item from {@code i}; the index after it, or -1 when it does not read. */
    private static int item(String s, int i, int maxParams, String[] name, Map<String, String> params) {
        int n = s.length();
        if (s.charAt(i) == '"') {
            int close = closingQuote(s, i);
            if (close < 0) {
                return -1;
            }
            name[0] = unescape(s, i + 1, close);
            i = close + 1;
        } else {
            int j = i;
            if (!(alpha(s.charAt(j)) || s.charAt(j) == '*')) {
                return -1;
            }
            j++;
            while (j < n && tokenChar(s.charAt(j))) {
                j++;
            }
            name[0] = s.substring(i, j);
            i = j;
        }
        while (true) {
            int j = skipSpaces(s, i);
            if (j >= n || s.charAt(j) != ';') {
                return i;
            }
            j = skipSpaces(s, j + 1);
            int k = j;
            if (k >= n || !(lower(s.charAt(k)) || s.charAt(k) == '*')) {
                return -1;
            }
            k++;
            while (k < n && keyChar(s.charAt(k))) {
                k++;
            }
            String key = s.substring(j, k);
            String value = "?1";
            if (k < n && s.charAt(k) == '=') {
                int v = skipSpaces(s, k + 1);
                if (v < n && s.charAt(v) == '"') {
                    int close = closingQuote(s, v);
                    if (close < 0) {
                        return -1;
                    }
                    value = s.substring(v, close + 1);
                    k = close + 1;
                } else {
                    int e = v;
                    while (e < n && s.charAt(e) != ';' && s.charAt(e) != ',') {
                        e++;
                    }
                    value = s.substring(v, e).trim();
                    k = e;
                }
            }
            if (params.size() < maxParams) {
                params.putIfAbsent(key, value);
            }
            i = k;
        }
    }

    /** The index of the quote that closes the string opened at {@code open}, or -1. */
    private static int closingQuote(String s, int open) {
        for (int i = open + 1; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\') {
                i++;
            } else if (c == '"') {
                return i;
            }
        }
        return -1;
    }

    private static String unescape(String s, int from, int to) {
        StringBuilder b = new StringBuilder(to - from);
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 1 < to) {
                c = s.charAt(++i);
            }
            b.append(c);
        }
        return b.toString();
    }

    /** The index of the next comma outside a quoted string from {@code i}, or the length. */
    private static int nextComma(String s, int i) {
        boolean quoted = false;
        for (; i < s.length(); i++) {
            char c = s.charAt(i);
            if (quoted && c == '\\') {
                i++;
            } else if (c == '"') {
                quoted = !quoted;
            } else if (c == ',' && !quoted) {
                return i;
            }
        }
        return s.length();
    }

    private static int skipSpaces(String s, int i) {
        while (i < s.length() && (s.charAt(i) == ' ' || s.charAt(i) == '\t')) {
            i++;
        }
        return i;
    }

    private static boolean alpha(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    private static boolean lower(char c) {
        return c >= 'a' && c <= 'z';
    }

    private static boolean tokenChar(char c) {
        return alpha(c) || (c >= '0' && c <= '9') || "_.:*/%-".indexOf(c) >= 0;
    }

    private static boolean keyChar(char c) {
        return lower(c) || (c >= '0' && c <= '9') || "_.*-".indexOf(c) >= 0;
    }
}
