package dev.slidegate.http;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** {@link BlockForTest} with the windows in Redis: the block is the store's, so every instance keeps it. */
@QuarkusTest
@TestProfile(SharedProfiles.OnRedis.class)
class RedisBlockForTest extends BlockForTest {
}
