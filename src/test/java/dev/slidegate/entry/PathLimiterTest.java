package dev.slidegate.entry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

/** The forms of a path that path policies match, and their patterns. */
class PathLimiterTest {

    @Test
    void aPathIsMatchedAsItIsRouted() {
        assertEquals(List.of("/api/products"), PathLimiter.routedForms("/api/products"));
        assertEquals(List.of("/"), PathLimiter.routedForms("/"));
        assertEquals(List.of("/api/products"), PathLimiter.routedForms("/api/products/"));
        assertEquals(List.of("/api/products"), PathLimiter.routedForms("/api/products;v=1"));
        assertEquals(List.of("/api/products/1"), PathLimiter.routedForms("/api;a/products;b=2/1;c/"));
        assertEquals(List.of("/api/products"), PathLimiter.routedForms("//api//products"));
        assertEquals(List.of("/"), PathLimiter.routedForms("/;x"));
        // the REST layer decodes the segments of a path with matrix parameters: /api%2Fproducts;x reaches /api/products
        assertEquals(List.of("/api%2Fproducts", "/api/products"), PathLimiter.routedForms("/api%2Fproducts;x"));
        assertEquals(List.of("/api/a%zz"), PathLimiter.routedForms("/api/a%zz"), "a malformed escape stays");
        assertEquals(List.of("/a+b"), PathLimiter.routedForms("/a+b/"), "a '+' in a path is no space");
    }

    @Test
    void patternsMatchOneSegmentOrAnyRest() {
        assertTrue(PathLimiter.glob("/api/products/*").matcher("/api/products/1").matches());
        assertFalse(PathLimiter.glob("/api/products/*").matcher("/api/products").matches());
        assertFalse(PathLimiter.glob("/api/products/*").matcher("/api/products/1/2").matches());
        assertTrue(PathLimiter.glob("/files/**").matcher("/files").matches(), "/files/ is routed as /files");
        assertTrue(PathLimiter.glob("/files/**").matcher("/files/a/b").matches());
        assertFalse(PathLimiter.glob("/files/**").matcher("/filesystem").matches());
        assertTrue(PathLimiter.glob("/api/products/").matcher("/api/products").matches(), "a trailing slash is left out");
    }
}
