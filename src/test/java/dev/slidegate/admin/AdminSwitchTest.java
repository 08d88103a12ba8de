package dev.slidegate.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Which spellings of a path reach {@code /admin} only once decoded: those are refused before the permission check. */
class AdminSwitchTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "/admin%2fadmin.js | true",
            "/admin%2Fadmin.js | true",
            "/%61dmin/admin.js | true",
            "/api/..%2Fadmin/admin.js | true",
            "/api/../admin/admin.js | true",
            "//admin/admin.js | true",
            "/./admin/index.html | true",
            "/api%5c..%5cadmin/admin.js | true",
            "/admin | false",
            "/admin/admin.js | false",
            "/admin/policies/reports/keys/hdr:%2F..%2F..%2Flogin | false",
            "/api/products | false",
            "/api/products/%2E%2E | false",
            "/administration | false",
            "/api/%zz | false" })
    void aPathThatMeansAdminOnlyOnceDecodedIsCaught(String raw, boolean disguised) {
        assertEquals(disguised, AdminPaths.disguised(raw, "/admin"), raw);
    }
}
