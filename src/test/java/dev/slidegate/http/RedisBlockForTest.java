package dev.slidegate.http;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** {@link BlockForTest} with the windows in Redis: the block is the store's, so every instance keeps it. */
// a regression fails in seconds, never hangs the build
@org.junit.jupiter.api.Timeout(value = 60, unit = java.util.concurrent.TimeUnit.SECONDS)
@QuarkusTest
@TestProfile(SharedProfiles.OnRedis.class)
class RedisBlockForTest extends BlockForTest {
}
