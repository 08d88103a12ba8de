package dev.slidegate.core;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Properties of the key parts callers choose (API keys, user names, path and query values), over any
 * text: bounded, free of what would reach another key or a Redis Cluster slot, and one to one.
 */
class KeyEncoderProperties {

    /** Any text, plus the characters that mean something in keys, paths and Redis over-represented. */
    @Provide
    Arbitrary<String> keys() {
        return Arbitraries.oneOf(Arbitraries.strings().ofMaxLength(100),
                Arbitraries.strings().withChars("{}*?#/.%:+ ~@-_aZ09\u00e9\u4e2d\ud83d\ude00\u0000\n").ofMaxLength(80),
                Arbitraries.strings().alpha().numeric().ofMinLength(60).ofMaxLength(70));
    }

    @Property(tries = 2000)
    void aPartIsBoundedAndHoldsNothingThatReachesAnotherKey(@ForAll("keys") String raw) {
        String part = KeyEncoder.part(raw);
        if (part.length() > KeyEncoder.MAX_KEPT) {
            throw new AssertionError("longer than " + KeyEncoder.MAX_KEPT + ": " + part);
        }
        for (char c : part.toCharArray()) {
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || ".-_~:@/#".indexOf(c) >= 0;
            if (!ok) {
                throw new AssertionError("'" + c + "' in " + part);
            }
        }
        if (!part.equals(raw) && !(part.startsWith("#") && part.length() == 44)) {
            throw new AssertionError("neither kept nor hashed: " + part);
        }
    }

    @Property(tries = 2000)
    void distinctTextIsADistinctPart(@ForAll("keys") String a, @ForAll("keys") String b) {
        if (!a.equals(b) && KeyEncoder.part(a).equals(KeyEncoder.part(b))) {
            throw new AssertionError("'" + a + "' and '" + b + "' share the part " + KeyEncoder.part(a));
        }
    }
}
