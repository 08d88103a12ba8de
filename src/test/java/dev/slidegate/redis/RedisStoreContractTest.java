package dev.slidegate.redis;

import dev.slidegate.testing.RedisServer;

/** The shared scenarios against the default redis-server (Debian's 7.0 in CI). */
class RedisStoreContractTest extends RedisContract {

    RedisStoreContractTest() {
        super(RedisServer.start());
    }
}
