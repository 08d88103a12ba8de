package dev.slidegate.core;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;

import dev.slidegate.core.UpstreamHeaders.Form;
import dev.slidegate.core.UpstreamHeaders.Quota;
import dev.slidegate.core.UpstreamHeaders.Reading;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Whatever an upstream writes in the fields Slidegate reads, of any length and shape, the reading (issue 56): never
 * throws, never needs more than a small constant stack (each reading runs on a thread of 128 KiB, where the regular
 * expressions it replaced overflowed on 3 000 characters of {@code 1m1m…}), never waits past the ceiling, never reads a
 * negative count. Values are random, huge (up to 20 000 characters) and built from repetitions of what each form's
 * grammar repeats.
 */
class UpstreamHeadersProperties {

    private static final long NOW = 1_795_000_000_000_000L;
    private static final long HOUR = 3_600_000_000L;
    private static final UpstreamHeaders ALL = new UpstreamHeaders(Form.all(), HOUR);
    private static final String[] NAMES = { "RateLimit", "RateLimit-Policy", "RateLimit-Limit", "RateLimit-Remaining",
            "RateLimit-Reset", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After",
            "x-ratelimit-limit-requests", "x-ratelimit-remaining-requests", "x-ratelimit-reset-requests",
            "x-ratelimit-limit-tokens", "x-ratelimit-remaining-tokens", "x-ratelimit-reset-tokens" };

    /** The pieces each form repeats, for values that would make a backtracking or recursive reader work hard. */
    private static final List<String> UNITS = List.of("1m", "1h2m3.5s", "9", "0.", "ms", "\"x\";q=1;w=1, ", "x;a=",
            ";a", " ", "\"", "\\\"", "\"\\", ";q=", ",", "1", "Sun, 06 Nov 1994 08:49:37 GMT", "µs", "=\"", "\"a\";r=0;t=1");

    @Provide
    Arbitrary<String> values() {
        Arbitrary<String> repeated = Combinators
                .combine(Arbitraries.of(UNITS), Arbitraries.integers().between(1, 5000), Arbitraries.of("", "s", "x", " "))
                .as((unit, times, tail) -> unit.repeat(times) + tail);
        Arbitrary<String> prefixed = Combinators.combine(Arbitraries.of("x;a=", "\"n\";q=", "1", "\""),
                Arbitraries.integers().between(1, 20_000), Arbitraries.of(" ", "9", "\t", "a")).as(
                        (head, times, filler) -> head + filler.repeat(times));
        Arbitrary<String> random = Arbitraries.strings().withChars("0123456789 ;,=\"\\-.:hmsuµnqrtwx\u0000\r\n\u00ff")
                .ofMaxLength(200);
        return Arbitraries.oneOf(repeated, prefixed, random, Arbitraries.strings().ofMaxLength(300));
    }

    @Provide
    Arbitrary<String> names() {
        return Arbitraries.of(NAMES);
    }

    @Property(tries = 600)
    void anyValueOfAnyFieldIsReadInBoundedStackAndWithinTheCeiling(@ForAll("names") String name,
            @ForAll("values") String value, @ForAll("names") String other, @ForAll("values") String otherValue)
            throws Exception {
        Map<String, List<String>> fields = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        fields.put(name, List.of(value));
        fields.merge(other, List.of(otherValue), (a, b) -> List.of(a.get(0), b.get(0)));
        AtomicReference<Object> out = new AtomicReference<>();
        Thread t = new Thread(null, () -> {
            try {
                out.set(ALL.read(fields::get, NOW));
            } catch (Throwable e) {
                out.set(e);
            }
        }, "small-stack", 128 * 1024);
        t.start();
        t.join(30_000);
        if (t.isAlive()) {
            t.interrupt();
            throw new AssertionError("still reading after 30 s: " + name + " of " + value.length() + " characters");
        }
        if (!(out.get() instanceof Reading r)) {
            throw new AssertionError(name + " of " + value.length() + " characters ("
                    + value.substring(0, Math.min(40, value.length())) + "…) threw " + out.get(), (Throwable) out.get());
        }
        if (r.retryAfterMicros() > HOUR || r.retryAfterMicros() < -1) {
            throw new AssertionError("Retry-After " + r.retryAfterMicros());
        }
        for (Quota q : r.quotas()) {
            if (q.resetMicros() > HOUR || q.resetMicros() < -1 || q.remaining() < -1 || q.limit() < -1
                    || q.windowMicros() < -1 || q.name().length() > UpstreamHeaders.MAX_LIST) {
                throw new AssertionError(name + " -> " + q);
            }
        }
        if (r.problems().size() > 2 * UpstreamHeaders.MAX_ITEMS + 10
                || r.problems().stream().anyMatch(p -> p.length() > 300)) {
            throw new AssertionError("problems unbounded: " + r.problems().size());
        }
    }
}
