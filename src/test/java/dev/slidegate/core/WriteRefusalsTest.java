package dev.slidegate.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Redis's own refusal messages, each named with its fix. On a real Redis: READONLY and OOM in
 * {@code RedisHealthTest}, MISCONF (a snapshot that cannot be saved) and a wrong password at start-up in
 * {@code LogsIT}; a password demanded by a running Redis (NOAUTH) is checked here on the message only.
 */
class WriteRefusalsTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "READONLY You can't write against a read only replica. | point quarkus.redis.hosts at the primary",
            "OOM command not allowed when used memory > 'maxmemory'. | set maxmemory-policy volatile-ttl",
            "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk. | fix its disk or persistence settings",
            "NOAUTH Authentication required. | set quarkus.redis.password",
            "WRONGPASS invalid username-password pair or user is disabled. | check quarkus.redis.password",
            "ERR invalid password | check quarkus.redis.password" })
    void eachRefusalIsNamedWithItsFix(String error, String fix) {
        String sentence = WriteRefusals.explain(error);
        assertTrue(sentence != null && sentence.contains(fix), sentence);
    }

    @Test
    void otherErrorsAreNotRefusalsOfWrites() {
        assertNull(WriteRefusals.explain(null));
        assertNull(WriteRefusals.explain("ERR unknown command 'FOO'"));
        assertNull(WriteRefusals.explain("Connection refused: localhost/127.0.0.1:1"));
    }

    @Test
    void onlyOutOfMemoryIsOneDecisionsFailure() {
        assertTrue(WriteRefusals.outOfMemory(new RuntimeException("OOM command not allowed when used memory > 'maxmemory'.")));
        assertFalse(WriteRefusals.outOfMemory(new RuntimeException("READONLY You can't write against a read only replica.")));
        assertFalse(WriteRefusals.outOfMemory(null));
        assertEquals(false, WriteRefusals.outOfMemory(new RuntimeException((String) null)));
    }
}
