package dev.slidegate.redis;

import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

import dev.slidegate.testing.RedisServer;

/**
 * The shared scenarios against Redis 6.2, the binary bundled in the test-scope embedded-redis
 * artifact (built for Linux amd64; elsewhere JUnit reports this class disabled with that reason):
 * the scripts must work on 6.2 as well as 7.x.
 */
@EnabledOnOs(value = OS.LINUX, architectures = "amd64", disabledReason = "the bundled Redis 6.2 binary is built for Linux amd64 only")
class Redis62StoreContractTest extends RedisContract {

    Redis62StoreContractTest() {
        super(RedisServer.startBundled62().orElseThrow());
    }
}
