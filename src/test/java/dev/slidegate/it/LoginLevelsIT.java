package dev.slidegate.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.slidegate.testing.RedisServer;

/**
 * Two levels on one call across a fleet (issue 59): the demo's login is limited per address ({@code login}) and per user
 * name ({@code login-user}), decided in one atomic step. The packaged service as 2 processes on one redis-server, the two
 * limits made 3 and 5 failed attempts a minute (the whole test runs within one window), behind a trusted proxy so that
 * clients can come from four addresses. 8 clients try wrong passwords for two user names from the four addresses, each
 * pair at random, on both instances in turn, for 2 seconds. The oracle is the endpoint's own answers: each 401 is a
 * failed attempt it ran and counted.
 *
 * <p>
 * Each address is answered at most 3 of them and each user at most 5; and since a call refused by one level is charged
 * to neither, each user gets exactly its 5: a user's budget is only ever spent by attempts that ran, and the addresses'
 * 12 are more than the users' 10, so attempts keep coming from addresses with room until both users are full. And
 * the attempts a user's limit refused spent no address's budget (policies decided one after the other would charge the
 * address first): after the flood, each address is answered exactly the failed attempts its own answered ones left it, for a
 * user with room.
 */
class LoginLevelsIT {

    private static final int PER_ADDRESS = 3;
    private static final int PER_USER = 5;
    private static final List<String> ADDRESSES = List.of("10.9.0.1", "10.9.0.2", "10.9.0.3", "10.9.0.4");
    private static final List<String> USERS = List.of("mallory", "trudy");

    @Test
    void eachLevelGetsItsFailedAttemptsAndARefusalByOneChargesNeither() throws Exception {
        try (RedisServer redis = RedisServer.start();
                ServiceProcess.Fleet fleet = ServiceProcess.fleet(2, "-Dquarkus.redis.hosts=" + redis.uri(),
                        "-Dslidegate.http.trusted-proxies=127.0.0.1,::1",
                        "-Dslidegate.policies.login.limits=" + PER_ADDRESS + "/1m",
                        "-Dslidegate.policies.login-user.limits=" + PER_USER + "/1m")) {
            Map<String, AtomicInteger> failed = new ConcurrentHashMap<>();
            Map<String, AtomicInteger> refusedBy = new ConcurrentHashMap<>();
            ConcurrentLinkedQueue<String> unexpected = new ConcurrentLinkedQueue<>();
            FleetClients.run(fleet.instances(), 8, 2_000_000_000L, unexpected, (http, target, random) -> {
                String address = ADDRESSES.get(random.nextInt(ADDRESSES.size()));
                String user = USERS.get(random.nextInt(USERS.size()));
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + target.port
                        + "/api/login")).header("Content-Type", "application/json").header("X-Forwarded-For", address)
                        .timeout(Duration.ofSeconds(10))
                        .POST(HttpRequest.BodyPublishers.ofString("{\"username\":\"" + user + "\",\"password\":\"guess\"}"))
                        .build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 401) {
                    failed.computeIfAbsent("address " + address, k -> new AtomicInteger()).incrementAndGet();
                    failed.computeIfAbsent("user " + user, k -> new AtomicInteger()).incrementAndGet();
                } else if (r.statusCode() == 429) {
                    String policy = r.body().contains("\"policy\":\"login-user\"") ? "login-user"
                            : r.body().contains("\"policy\":\"login\"") ? "login" : r.body();
                    refusedBy.computeIfAbsent(policy, k -> new AtomicInteger()).incrementAndGet();
                } else {
                    unexpected.add(r.statusCode() + " " + r.body());
                }
            });
            Map<String, Integer> counts = new TreeMap<>();
            failed.forEach((k, v) -> counts.put(k, v.get()));
            Map<String, Integer> refusals = new TreeMap<>();
            refusedBy.forEach((k, v) -> refusals.put(k, v.get()));
            System.out.printf("two instances, 8 clients, 4 addresses x 2 users: failed attempts answered %s; refused by %s%n",
                    counts, refusals);
            assertEquals(List.of(), List.copyOf(unexpected), "only failed attempts and refusals");
            for (String a : ADDRESSES) {
                int n = counts.getOrDefault("address " + a, 0);
                assertTrue(n <= PER_ADDRESS, n + " failed attempts from " + a + " in one minute, more than " + PER_ADDRESS);
            }
            for (String u : USERS) {
                assertEquals(PER_USER, counts.getOrDefault("user " + u, 0), "failed attempts answered for " + u
                        + " (a refusal that charged an address spends it on nothing): " + counts + ", refused " + refusals);
            }
            assertEquals(java.util.Set.of("login", "login-user"), refusals.keySet(), "refusals name one of the two levels");

            // the attempts the users' limit refused spent no address's budget: each address still has exactly what its
            // answered failures left it, for a user with room (one of its own), on either instance
            java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
            for (int i = 0; i < ADDRESSES.size(); i++) {
                String a = ADDRESSES.get(i);
                int left = PER_ADDRESS - counts.getOrDefault("address " + a, 0);
                int answered = 0;
                for (int k = 0; k <= PER_ADDRESS; k++) {
                    answered += attempt(http, fleet.instances().get(k % 2), a, "eve-" + i) == 401 ? 1 : 0;
                }
                assertEquals(left, answered, "failed attempts still answered from " + a + " after the flood");
            }
        }
    }

    private static int attempt(java.net.http.HttpClient http, ServiceProcess target, String address, String user)
            throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + target.port + "/api/login"))
                .header("Content-Type", "application/json").header("X-Forwarded-For", address)
                .timeout(Duration.ofSeconds(10))
                .POST(HttpRequest.BodyPublishers.ofString("{\"username\":\"" + user + "\",\"password\":\"guess\"}"))
                .build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }
}
