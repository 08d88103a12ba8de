package dev.slidegate.core;

/**
 * A duration as the LLM providers write their resets ({@code 6m0s}, {@code 250ms}, {@code 1h2m3.5s}: Go's
 * {@code time.Duration} format, without a sign), read by hand in one pass: no regular expression, so a value of any
 * length costs time in proportion to it and a constant stack (issue 56).
 */
final class GoDuration {

    /** The longest value read; a longer one is not a duration any provider sends. */
    static final int MAX_LENGTH = 64;

    private GoDuration() {
    }

    /** The duration in microseconds (possibly fractional, possibly huge), or -1 when {@code v} is not one. */
    static double micros(String v) {
        int n = v.length();
        if (n == 0 || n > MAX_LENGTH) {
            return -1;
        }
        double total = 0;
        int i = 0;
        while (i < n) {
            int start = i;
            while (i < n && isDigit(v.charAt(i))) {
                i++;
            }
            int whole = i - start;
            int fraction = 0;
            if (i < n && v.charAt(i) == '.') {
                int f = ++i;
                while (i < n && isDigit(v.charAt(i))) {
                    i++;
                }
                fraction = i - f;
                if (fraction == 0) {
                    return -1;
                }
            }
            if (whole == 0 || whole > 9 || fraction > 9) {
                return -1;
            }
            double number = Double.parseDouble(v.substring(start, i));
            double unit;
            if (v.startsWith("ms", i)) {
                unit = 1000;
                i += 2;
            } else if (v.startsWith("us", i) || v.startsWith("µs", i)) {
                unit = 1;
                i += 2;
            } else if (v.startsWith("ns", i)) {
                unit = 0.001;
                i += 2;
            } else if (v.startsWith("h", i)) {
                unit = 3_600_000_000d;
                i++;
            } else if (v.startsWith("m", i)) {
                unit = 60_000_000d;
                i++;
            } else if (v.startsWith("s", i)) {
                unit = 1_000_000d;
                i++;
            } else {
                return -1;
            }
            total += number * unit;
        }
        return total;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }
}
