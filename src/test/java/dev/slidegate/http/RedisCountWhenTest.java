package dev.slidegate.http;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** {@link CountWhenTest} with the windows in Redis: the settlement by outcome is the store's settle script there. */
@QuarkusTest
@TestProfile(SharedProfiles.OnRedis.class)
class RedisCountWhenTest extends CountWhenTest {
}
