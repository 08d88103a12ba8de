package dev.slidegate.redis;

import org.junit.jupiter.api.Assumptions;

import dev.slidegate.testing.RedisServer;

/**
 * The shared scenarios against Redis 6.2, the binary bundled in the test-scope embedded-redis artifact
 * for this machine's OS and architecture (Linux amd64, arm64 and x86, macOS amd64 and arm64; elsewhere
 * the class is skipped with that reason printed): the scripts must work on 6.2 as well as 7.x.
 */
class Redis62StoreContractTest extends RedisContract {

    Redis62StoreContractTest() {
        super(RedisServer.bundledBinary().map(RedisServer::start).orElseGet(() -> {
            String reason = "Redis62StoreContractTest: no bundled Redis 6.2 binary for " + System.getProperty("os.name") + "/"
                    + System.getProperty("os.arch");
            System.out.println("SKIPPED " + reason);
            Assumptions.abort(reason);
            return null;
        }));
    }
}
