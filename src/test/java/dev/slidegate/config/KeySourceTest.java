package dev.slidegate.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

class KeySourceTest {

    @Test
    void parsesSingleSources() {
        assertEquals(new KeySource.Ip(), KeySource.parse(" ip "));
        assertEquals(new KeySource.Path(), KeySource.parse("path"));
        assertEquals(new KeySource.Header("X-Api-Key"), KeySource.parse("header:X-Api-Key"));
        assertEquals(new KeySource.Param("tenant"), KeySource.parse("param:tenant"));
        assertEquals(new KeySource.Named("tenantResolver"), KeySource.parse("tenantResolver"));
    }

    @Test
    void parsesComposites() {
        KeySource k = KeySource.parse("user + header:X-Tenant");
        assertEquals(new KeySource.Composite(List.of(new KeySource.User(), new KeySource.Header("X-Tenant"))), k);
        assertEquals("user+header:X-Tenant", k.spec());
        assertEquals("ip+path", KeySource.parse("ip+path").spec());
    }

    @Test
    void rejectsWhatCannotBeAKeySource() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> KeySource.parse("ip+")).getMessage()
                .startsWith("'ip+' is not a key source: expected ip, user, global, path"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> KeySource.parse("ip+ip")).getMessage()
                .contains("names ip twice"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> KeySource.parse("global+ip")).getMessage()
                .contains("global alone"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> KeySource.parse("header:")).getMessage()
                .contains("names no valid header"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> KeySource.parse("param:a b")).getMessage()
                .contains("query parameter"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> KeySource.parse("has space")).getMessage()
                .contains("is not a key source"));
    }
}
