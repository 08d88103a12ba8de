package dev.slidegate.redis;

import dev.slidegate.testing.RedisServer;

/**
 * The shared scenarios against the system's redis-server, which must be 7.x or newer (Debian's 7.0,
 * which {@code .ci/run} installs); it prints the version it ran on. {@link Redis62StoreContractTest}
 * covers 6.2.
 */
class RedisStoreContractTest extends RedisContract {

    RedisStoreContractTest() {
        super(RedisServer.startAtLeast(7, "RedisStoreContractTest"));
    }
}
