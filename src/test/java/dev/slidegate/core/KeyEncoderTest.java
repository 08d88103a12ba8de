package dev.slidegate.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class KeyEncoderTest {

    @Test
    void keepsShortSafeText() {
        assertEquals("10.0.0.1", KeyEncoder.part("10.0.0.1"));
        assertEquals("2001:db8::1", KeyEncoder.part("2001:db8::1"));
        assertEquals("alice@example.com", KeyEncoder.part("alice@example.com"));
    }

    @Test
    void hashesBracesLongAndUnusualText() {
        for (String raw : new String[] { "a{b}c", "}", "x".repeat(65), "naïve", "a b", "a+b", "" }) {
            String part = KeyEncoder.part(raw);
            assertTrue(part.startsWith("#"), raw);
            assertEquals(44, part.length(), raw);
            assertFalse(part.contains("{") || part.contains("}"), raw);
        }
    }

    @Test
    void keptAndHashedValuesNeverCollide() {
        String hashed = KeyEncoder.part("a{b}");
        assertNotEquals(hashed, KeyEncoder.part(hashed), "a hashed value given as a key is hashed again, so it cannot collide");
    }

    @Test
    void differentCallersGetDifferentParts() {
        assertNotEquals(KeyEncoder.part("x".repeat(65)), KeyEncoder.part("x".repeat(66)));
    }
}
