package dev.slidegate.testing;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/**
 * A real Redis Cluster of 3 masters and 3 replicas on loopback, built by this fixture with
 * {@code CLUSTER MEET}, {@code ADDSLOTS} and {@code REPLICATE} (so it needs no {@code redis-cli} and
 * works with the bundled 6.2 binary too), and stopped by it. Node timeout 1 s by default, so a killed master is
 * replaced within a few seconds; fixtures that test no failover take Redis's own default (15 s), since a node
 * starved of CPU for a second on a loaded machine is then taken for dead too, and a failover loses the writes its
 * replica had not yet received (Redis replicates asynchronously). On close, a cluster that marked a node failing or
 * held an election says so on standard output.
 */
public final class RedisCluster implements AutoCloseable {

    private final List<RedisServer> nodes = new ArrayList<>();
    private final Path dir;

    private RedisCluster(Path dir) {
        this.dir = dir;
    }

    public static RedisCluster start() {
        return start(java.time.Duration.ofSeconds(1));
    }

    /** A cluster whose nodes take a node unreachable for {@code nodeTimeout} for failed. */
    public static RedisCluster start(java.time.Duration nodeTimeout) {
        Path dir = Leftovers.tempDirectory("slidegate-cluster");
        RedisCluster c = new RedisCluster(dir);
        try {
            String binary = RedisServer.defaultBinary();
            for (int i = 0; i < 6; i++) {
                int port = clusterPort();
                c.nodes.add(RedisServer.start(binary, port, "--cluster-enabled", "yes", "--cluster-config-file",
                        dir.resolve("nodes-" + port + ".conf").toString(), "--cluster-node-timeout",
                        Long.toString(nodeTimeout.toMillis()), "--dir",
                        dir.toString()));
            }
            c.build();
            return c;
        } catch (RuntimeException e) {
            c.close();
            throw e;
        }
    }

    private void build() {
        int perMaster = 16384 / 3;
        for (int m = 0; m < 3; m++) {
            int from = m * perMaster;
            int to = m == 2 ? 16383 : from + perMaster - 1;
            List<String> cmd = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
            IntStream.rangeClosed(from, to).forEach(s -> cmd.add(Integer.toString(s)));
            call(nodes.get(m), cmd.toArray(String[]::new));
        }
        for (int i = 1; i < 6; i++) {
            call(nodes.get(0), "CLUSTER", "MEET", "127.0.0.1", Integer.toString(nodes.get(i).port()));
        }
        await("every node knows all 6", () -> nodes.stream().allMatch(n -> knownNodes(n) == 6));
        for (int r = 3; r < 6; r++) {
            String masterId = (String) call(nodes.get(r - 3), "CLUSTER", "MYID");
            call(nodes.get(r), "CLUSTER", "REPLICATE", masterId);
        }
        await("cluster state ok with 3 masters and 3 synced replicas",
                () -> nodes.stream().allMatch(n -> info(n, "CLUSTER", "INFO")
                        .contains("cluster_state:ok")) && nodes.subList(3, 6).stream()
                                .allMatch(n -> info(n, "INFO", "replication").contains("master_link_status:up")));
    }

    /** The hosts value for {@code quarkus.redis.hosts}: every node, comma-separated. */
    public String hosts() {
        return String.join(",", nodes.stream().map(RedisServer::uri).toList());
    }

    /** A URI of one node (any node: the cluster client discovers the others). */
    public String uri() {
        return nodes.get(0).uri();
    }

    /** The nodes, masters first as built (roles change after a failover: see {@link #masters()}). */
    public List<RedisServer> nodes() {
        return nodes;
    }

    /** The nodes that are masters now and alive. */
    public List<RedisServer> masters() {
        return nodes.stream().filter(n -> {
            try {
                return info(n, "INFO", "replication").contains("role:master");
            } catch (RuntimeException dead) {
                return false;
            }
        }).toList();
    }

    /** A replica of {@code master}, by its {@code INFO replication}. */
    public RedisServer replicaOf(RedisServer master) {
        return nodes.stream().filter(n -> {
            try {
                return info(n, "INFO", "replication").contains("master_port:" + master.port());
            } catch (RuntimeException dead) {
                return false;
            }
        }).findFirst().orElseThrow(() -> new IllegalStateException("no replica of " + master.uri()));
    }

    /** Waits until every live node reports {@code cluster_state:ok} and there are 3 live masters. */
    public void awaitHealthy() {
        await("a healthy cluster with 3 live masters", () -> masters().size() == 3 && nodes.stream().allMatch(n -> {
            try {
                return info(n, "CLUSTER", "INFO").contains("cluster_state:ok");
            } catch (RuntimeException dead) {
                return true;
            }
        }));
    }

    private static long knownNodes(RedisServer n) {
        String info = info(n, "CLUSTER", "INFO");
        return info.lines().filter(l -> l.startsWith("cluster_known_nodes:")).map(l -> Long.parseLong(l.substring(20).trim()))
                .findFirst().orElse(0L);
    }

    static String info(RedisServer n, String... cmd) {
        return (String) call(n, cmd);
    }

    static Object call(RedisServer n, String... cmd) {
        try (Resp r = n.connect()) {
            return r.call(cmd);
        }
    }

    private static void await(String what, java.util.function.BooleanSupplier ok) {
        Eventually.eventually(java.time.Duration.ofSeconds(30), ok::getAsBoolean, Boolean::booleanValue,
                "Redis Cluster: " + what);
    }

    /** A free port whose cluster bus port (port + 10000) is free too. */
    private static int clusterPort() {
        for (int attempt = 0; attempt < 100; attempt++) {
            int port = 20000 + java.util.concurrent.ThreadLocalRandom.current().nextInt(30000);
            if (free(port) && free(port + 10000)) {
                return port;
            }
        }
        throw new IllegalStateException("no free port pair for a cluster node");
    }

    private static boolean free(int port) {
        try (ServerSocket s = new ServerSocket(port, 1, java.net.InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public void close() {
        for (RedisServer n : nodes) {
            n.logLines().filter(l -> l.contains("as failing") || l.contains("ailover election"))
                    .forEach(l -> System.out.println("RedisCluster: node " + n.port() + " logged: " + l));
        }
        nodes.forEach(RedisServer::close);
        Leftovers.delete(dir);
    }
}
