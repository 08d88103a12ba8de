package dev.slidegate.http;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import jakarta.inject.Inject;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.slidegate.config.StoreStack;
import dev.slidegate.testing.RedisTestResource;
import dev.slidegate.testing.Resp;
import dev.slidegate.testing.Tools;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * Issue 20, attack 2 on Redis, with the shipped defaults (fail mode {@code local}, redis-server's own
 * {@code maxmemory-policy noeviction}): a flood of distinct API keys fills a Redis with a small
 * {@code maxmemory}; the login window of an address locked out before the flood is neither evicted nor
 * replaced by a fresh local one, and no request of the flood fails.
 */
@QuarkusTest
@TestProfile(SharedProfiles.OnRedis.class)
class RedisKeyFloodTest {

    @Inject
    StoreStack stack;

    @BeforeEach
    void flush() { // the profile's Redis is shared: the login window of this address starts empty
        RedisTestResource.flushAll(stack);
    }

    private static int login(String password) {
        return given().contentType("application/json").body("{\"username\": \"alice\", \"password\": \"" + password + "\"}")
                .post("/api/login").statusCode();
    }

    /** Whether Redis refuses a write for lack of memory. */
    private static boolean full(Resp redis) {
        try {
            redis.call("SET", "probe", "x");
            return false;
        } catch (IllegalStateException e) {
            assertTrue(e.getMessage().contains("OOM"), e.getMessage());
            return true;
        }
    }

    @Test
    void aFloodThatFillsRedisDoesNotLiftAnotherPolicysLimit() {
        // On Redis 6.2 (the bundled server of a machine with only a JDK) the flood's scripts went on writing after
        // Redis had refused a plain SET for memory (927 keys after 950 requests), so nothing here would be full
        String version = RedisTestResource.server().version();
        if (Integer.parseInt(version.split("\\.")[0]) < 7) {
            Tools.missing("RedisKeyFloodTest", "redis-server 7.x or newer (apt-get install redis-server), not " + version);
        }
        for (int i = 0; i < 5; i++) {
            assertEquals(401, login("guess"));
        }
        assertEquals(429, login("guess"));
        try (Resp redis = RedisTestResource.server().connect()) {
            assertEquals("noeviction", ((List<?>) redis.call("CONFIG", "GET", "maxmemory-policy")).get(1));
            String info = String.valueOf(redis.call("INFO", "memory"));
            long used = Long.parseLong(info.replaceAll("(?s).*used_memory:(\\d+).*", "$1"));
            redis.call("CONFIG", "SET", "maxmemory", String.valueOf(used + 100_000));
            try {
                int[] statuses = new int[600];
                int sent = 0;
                int afterFull = -1; // requests sent since Redis was seen full
                while (afterFull < 200 && sent < 5000) {
                    statuses[given().header("X-Api-Key", "flood-" + sent).get("/api/reports").statusCode()]++;
                    sent++;
                    if (afterFull >= 0) {
                        afterFull++;
                    } else if (sent % 50 == 0 && full(redis)) {
                        afterFull = 0;
                    }
                }
                long keys = redis.number("DBSIZE");
                assertTrue(full(redis), "the flood filled Redis (" + keys + " keys after " + sent + " requests)");
                for (int s = 500; s < 600; s++) {
                    assertEquals(0, statuses[s], "no request of the flood fails: " + s);
                }
                System.out.printf("RedisKeyFloodTest: %d requests of the flood left %d keys in Redis; %d admitted%n", sent,
                        keys,
                        statuses[200]);
                assertEquals(429, login("wonderland"), "the address locked out before the flood is still locked out");
                assertEquals(429, login("wonderland"));
            } finally {
                redis.call("CONFIG", "SET", "maxmemory", "0");
            }
        }
    }
}
