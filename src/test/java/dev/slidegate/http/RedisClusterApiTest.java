package dev.slidegate.http;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import dev.slidegate.testing.AdminCredentials;
import dev.slidegate.testing.RedisCluster;
import dev.slidegate.testing.RedisClusterTestResource;
import dev.slidegate.testing.RedisServer;
import dev.slidegate.testing.Resp;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/**
 * The service on a real Redis Cluster (3 masters, 3 replicas) with {@code quarkus.redis.client-type=cluster}:
 * keys of every strategy spread over all masters, the admin counts every master, and a manual
 * {@code CLUSTER FAILOVER} and a {@code kill -9} of a master under load cause no 5xx with the default
 * fail mode ({@code local}); afterwards decisions are Redis's again without any restart.
 */
@QuarkusTest
@TestProfile(RedisClusterApiTest.OnCluster.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisClusterApiTest {

    public static class OnCluster implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("slidegate.policies.reports.limits", "1000000/1h", "slidegate.policies.products.limits", "3/10m",
                    SmallLimits.NO_OPENAPI_SCAN, "true");
        }

        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(RedisClusterTestResource.class));
        }
    }

    @TestHTTPResource("/api/reports")
    URI reports;

    private static RedisCluster cluster() {
        return RedisClusterTestResource.cluster();
    }

    @Test
    @Order(1)
    void keysSpreadOverAllMastersAndTheAdminCountsThemAll() {
        for (int i = 0; i < 200; i++) {
            given().header("X-Api-Key", "spread-" + i).get("/api/reports").then().statusCode(200).header("RateLimit",
                    org.hamcrest.Matchers.containsString("r=999999"));
        }
        Map<Integer, Long> perMaster = new TreeMap<>();
        for (RedisServer m : cluster().masters()) {
            perMaster.put(m.port(), (long) scan(m, "slidegate:{reports:hdr:spread-*").size());
        }
        assertEquals(3, perMaster.size(), "masters " + perMaster);
        assertEquals(200, perMaster.values().stream().mapToLong(Long::longValue).sum(), "keys per master " + perMaster);
        perMaster
                .forEach((port, n) -> assertTrue(n > 30, "master " + port + " holds only " + n + " of 200 keys: " + perMaster));

        // the listing walks every master: all 200, each once
        Set<String> listed = new HashSet<>();
        String cursor = "";
        int pages = 0;
        do {
            var page = admin().queryParam("limit", 50).queryParam("cursor", cursor).get("/admin/policies/reports/keys").then()
                    .statusCode(200).extract().jsonPath();
            page.getList("keys.key", String.class).stream().filter(k -> k.startsWith("hdr:spread-")).forEach(listed::add);
            cursor = page.getString("next");
            pages++;
        } while (cursor != null && pages < 50);
        assertEquals(200, listed.size());
        // the summary's counts are at most about a second old
        dev.slidegate.testing.Eventually.eventually(java.time.Duration.ofSeconds(10),
                () -> admin().get("/admin").jsonPath().getLong("policies.find { it.name == 'reports' }.activeKeys"),
                counted -> counted >= 200, "the summary counting the 200 keys");
    }

    @Test
    @Order(2)
    void aManualFailoverAndAKilledMasterUnderLoadCauseNo5xx() throws Exception {
        HttpClient http = HttpClient.newBuilder().executor(Executors.newFixedThreadPool(4)).build();
        Map<Integer, LongAdder> statuses = new ConcurrentHashMap<>();
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicInteger next = new AtomicInteger();
        ExecutorService load = Executors.newFixedThreadPool(8);
        for (int t = 0; t < 8; t++) {
            load.submit(() -> {
                while (running.get()) {
                    HttpRequest request = HttpRequest.newBuilder(reports)
                            .header("X-Api-Key", "load-" + next.incrementAndGet() % 200)
                            .timeout(java.time.Duration.ofSeconds(10)).build();
                    try {
                        int status = http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
                        statuses.computeIfAbsent(status, s -> new LongAdder()).increment();
                    } catch (Exception e) {
                        statuses.computeIfAbsent(-1, s -> new LongAdder()).increment();
                    }
                }
                return null;
            });
        }
        try {
            Thread.sleep(1000);
            // 1. a manual failover: a replica takes over its master's slots, the old master becomes its replica
            RedisServer first = cluster().masters().get(0);
            RedisServer replica = cluster().replicaOf(first);
            try (Resp r = replica.connect()) {
                assertEquals("OK", r.call("CLUSTER", "FAILOVER"));
            }
            awaitRole(replica, "role:master");
            cluster().awaitHealthy();
            Thread.sleep(1000);

            // 2. a master killed (SIGKILL) under load: its replica is promoted after the node timeout
            RedisServer victim = cluster().masters().stream().filter(m -> m != replica).findFirst().orElseThrow();
            RedisServer heir = cluster().replicaOf(victim);
            victim.signal("KILL");
            awaitRole(heir, "role:master");
            cluster().awaitHealthy();
            Thread.sleep(2000);
        } finally {
            running.set(false);
            load.shutdown();
            assertTrue(load.awaitTermination(30, TimeUnit.SECONDS));
        }
        Map<Integer, Long> seen = new TreeMap<>();
        statuses.forEach((s, n) -> seen.put(s, n.sum()));
        System.out.println("RedisClusterApiTest: responses during failover and killed master: " + seen);
        assertEquals(Set.of(200), seen.keySet(), "only 200s (fail mode local, limit not reachable): " + seen);
        assertTrue(seen.get(200) > 100, "load ran: " + seen);

        // 3. recovered by itself: new callers are decided by Redis again (local fallback writes nothing to Redis)
        int[] round = { 0 };
        dev.slidegate.testing.Eventually.eventually(java.time.Duration.ofSeconds(10), () -> {
            round[0]++;
            for (int i = 0; i < 20; i++) {
                given().header("X-Api-Key", "after-" + round[0] + "-" + i).get("/api/reports").then().statusCode(200);
            }
            int found = 0;
            for (RedisServer m : cluster().masters()) {
                found += scan(m, "slidegate:{reports:hdr:after-" + round[0] + "-*").size();
            }
            return found;
        }, found -> found == 20, "the 20 new callers of one round in Redis");
    }

    private static io.restassured.specification.RequestSpecification admin() {
        return AdminCredentials.admin();
    }

    private static void awaitRole(RedisServer node, String role) {
        dev.slidegate.testing.Eventually.eventually(java.time.Duration.ofSeconds(30), () -> {
            try (Resp r = node.connect()) {
                return (String) r.call("INFO", "replication");
            }
        }, info -> info.contains(role), node.uri() + " reporting " + role);
    }

    /** Every key of one node matching {@code pattern}. */
    private static List<String> scan(RedisServer node, String pattern) {
        try (Resp r = node.connect()) {
            return r.scan(pattern);
        }
    }
}
