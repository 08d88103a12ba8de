package dev.slidegate.redis;

import dev.slidegate.core.LimiterStore;
import dev.slidegate.core.StoreContract;
import dev.slidegate.testing.RedisClients;
import dev.slidegate.testing.RedisServer;
import dev.slidegate.testing.Resp;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;

/**
 * The shared scenarios against a real redis-server. The clock is the server's {@code TIME}, so time
 * moves by sleeping, and the window is short (600 ms) with steps landing at least 150 ms from an edge.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class RedisContract extends StoreContract {

    private final RedisServer server;
    private final AutoCloseable owner;
    private final RedisClients clients;
    private final RedisStore store;

    /** {@code timeServer} answers {@code TIME} for alignment; {@code owner} is closed after the clients. */
    record Parts(RedisServer timeServer, AutoCloseable owner, RedisClients clients) {
    }

    RedisContract(RedisServer server) {
        this(() -> new Parts(server, server, new RedisClients(server)));
    }

    RedisContract(java.util.function.Supplier<Parts> parts) {
        Parts p = parts.get();
        this.server = p.timeServer();
        this.owner = p.owner();
        this.clients = p.clients();
        this.store = new RedisStore(clients.dataSource(), Duration.ofSeconds(5), clients.nodes());
    }

    @AfterAll
    void stop() throws Exception {
        clients.close();
        owner.close();
    }

    @Override
    protected LimiterStore store() {
        return store;
    }

    @Override
    protected void advance(long micros) {
        sleepMicros(micros);
    }

    @Override
    protected long w() {
        return 600_000;
    }

    @Override
    protected long edge() {
        return 150_000;
    }

    /** Sleeps until 20 ms after the next multiple of {@code window} on the Redis server's clock. */
    @Override
    protected void alignTo(long window) {
        try (Resp r = server.connect()) {
            @SuppressWarnings("unchecked")
            List<String> time = (List<String>) r.call("TIME");
            long now = Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1));
            long next = (now / window + 1) * window;
            sleepMicros(next - now + 20_000);
        }
    }

    private static void sleepMicros(long micros) {
        try {
            Thread.sleep(micros / 1000, (int) (micros % 1000) * 1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
