package dev.slidegate.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.UncheckedIOException;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The conditions of {@code count-when}: statuses, classes of status, exception types, and what an unknown outcome is. */
class CountWhenConditionsTest {

    @Test
    void statusesClassesAndExceptionTypesMatchWhatTheySay() {
        CountWhen when = CountWhen.parse(List.of("401", " 5xx", "java.io.IOException"));
        assertTrue(when.counts(401, null));
        assertFalse(when.counts(403, null));
        assertTrue(when.counts(500, null) && when.counts(599, null));
        assertFalse(when.counts(200, null));
        // an exception of the type, a subclass, or one among the causes
        assertTrue(when.counts(200, new java.io.FileNotFoundException()));
        assertTrue(when.counts(200, new UncheckedIOException(new java.io.IOException("cause"))));
        assertFalse(when.counts(200, new IllegalStateException()));
        assertEquals("401,5xx,java.io.IOException", when.toString());
    }

    // a call whose outcome is not known (its caller left) counts: leaving never makes a call free
    @Test
    void anUnknownOutcomeCounts() {
        assertTrue(CountWhen.parse(List.of("401")).counts(CountWhen.UNKNOWN, null));
    }

    @Test
    void whatIsNoOutcomeIsRefusedInOneSentence() {
        for (String bad : List.of("99", "600", "6xx", "4XX", "Exception", "java.io.", "401;403", "x".repeat(300))) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CountWhen.parse(List.of(bad)),
                    bad);
            assertTrue(e.getMessage().contains("is no outcome") && !e.getMessage().contains("\n"), e.getMessage());
        }
        assertTrue(assertThrows(IllegalArgumentException.class, () -> CountWhen.parse(List.of())).getMessage()
                .contains("names no outcome"));
    }

    // a cause chain that loops ends
    @Test
    void aLoopOfCausesEnds() {
        Exception a = new Exception("a");
        Exception b = new Exception("b", a);
        a.initCause(b);
        assertFalse(CountWhen.parse(List.of("java.io.IOException")).counts(200, a));
    }
}
