package dev.slidegate.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import dev.slidegate.engine.Leases;
import dev.slidegate.testing.Eventually;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.smallrye.mutiny.subscription.Cancellable;

/**
 * Calls in flight over HTTP (issue 40), judged by the endpoint itself: {@link InFlightResource} counts the calls of a
 * gate running at once. For each way a call ends, two calls of a tenant run, a third is refused, and once the two end
 * that way, two can run at once again: a path that leaked a lease would leave one slot, or none.
 */
@QuarkusTest
@TestProfile(SmallLimits.class)
class InFlightCallsTest {

    private static final AtomicInteger GATES = new AtomicInteger();

    @TestHTTPResource("/test/in-flight/")
    URI base;
    @Inject
    InFlightResource.Work work;
    @Inject
    Leases leases;
    @Inject
    dev.slidegate.engine.Waits waits;
    @Inject
    dev.slidegate.core.DecisionStore store;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private CompletableFuture<HttpResponse<String>> send(String path, String tenant) {
        return http.sendAsync(HttpRequest.newBuilder(base.resolve(path)).header("X-Tenant", tenant)
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String newGate() {
        return "g" + GATES.incrementAndGet();
    }

    private static void awaitRunning(String gate, int calls) {
        Eventually.eventually(Duration.ofSeconds(10), () -> InFlightResource.running(gate), n -> n == calls,
                calls + " calls of " + gate + " running");
    }

    /** The instance's leases all ended (the response's end is seen after the client has it): then asks again. */
    private void awaitLeasesEnded() {
        Eventually.eventually(Duration.ofSeconds(10), leases::inFlight, n -> n == 0, "every lease of this instance ended");
    }

    /** Two calls run, a third is refused in the concurrency form; two end with {@code status}; then two run again. */
    private void twoAtOnceFreedBy(String endpoint, int status) {
        String tenant = "t-" + newGate();
        String gate = newGate();
        var first = send(endpoint + "/" + gate, tenant);
        var second = send(endpoint + "/" + gate, tenant);
        awaitRunning(gate, 2);
        String refusedGate = newGate();
        HttpResponse<String> third = send(endpoint + "/" + refusedGate, tenant).join();
        assertEquals(429, third.statusCode(), third.body());
        assertTrue(
                third.body().contains("#quota-exceeded") && third.body().contains(" in flight\"")
                        && third.body().contains("2 calls at once"),
                third.body());
        assertEquals("\"in-flight\";q=2;qu=\"concurrent-requests\"", third.headers().firstValue("RateLimit-Policy").orElse(""));
        assertEquals("\"in-flight\";r=0;t=1", third.headers().firstValue("RateLimit").orElse(""));
        assertEquals("1", third.headers().firstValue("Retry-After").orElse(""));
        assertEquals(0, InFlightResource.running(refusedGate), "a refused call never ran");
        String otherGate = newGate();
        var other = send(endpoint + "/" + otherGate, "t-other-" + gate);
        awaitRunning(otherGate, 1); // another tenant has slots of its own
        InFlightResource.gate(otherGate).complete(null);
        assertEquals(status, other.join().statusCode());

        InFlightResource.gate(gate).complete(null);
        assertEquals(status, first.join().statusCode());
        assertEquals(status, second.join().statusCode());
        awaitLeasesEnded();
        assertTwoRunAgain(endpoint, tenant, status);
    }

    private void assertTwoRunAgain(String endpoint, String tenant, int status) {
        String again = newGate();
        var a = send(endpoint + "/" + again, tenant);
        var b = send(endpoint + "/" + again, tenant);
        awaitRunning(again, 2);
        InFlightResource.gate(again).complete(null);
        assertEquals(status, a.join().statusCode(), "two calls run at once again");
        assertEquals(status, b.join().statusCode());
        assertEquals(2, InFlightResource.MOST.get(again).get());
        awaitLeasesEnded();
    }

    @Test
    void aBlockingCallHoldsItsSlotUntilItAnswers() {
        twoAtOnceFreedBy("blocking", 200);
    }

    @Test
    void aCallThatFailsGivesItsSlotBack() {
        twoAtOnceFreedBy("fails", 500);
    }

    @Test
    void aUniCallHoldsItsSlotUntilItsItemIsWritten() {
        twoAtOnceFreedBy("uni", 200);
    }

    @Test
    void aCompletionStageCallHoldsItsSlotUntilItCompletes() {
        twoAtOnceFreedBy("stage", 200);
    }

    // a stream is in flight until its last element is written: its first one is out long before
    @Test
    void aStreamHoldsItsSlotUntilItEnds() {
        twoAtOnceFreedBy("stream", 200);
    }

    // the client goes away mid-call: its connection closes, and the slot comes back though the call never answered
    @Test
    void aClientThatDisconnectsGivesItsSlotBack() throws Exception {
        String tenant = "t-" + newGate();
        String gate = newGate();
        try (Socket one = new Socket(base.getHost(), base.getPort()); Socket two = new Socket(base.getHost(), base.getPort())) {
            for (Socket s : new Socket[] { one, two }) {
                OutputStream out = s.getOutputStream();
                out.write(("GET " + base.getPath() + "uni/" + gate + " HTTP/1.1\r\nHost: localhost\r\nX-Tenant: " + tenant
                        + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                out.flush();
            }
            awaitRunning(gate, 2);
            assertEquals(429, send("uni/" + newGate(), tenant).join().statusCode());
        } // both clients gone, their calls still waiting for the gate
        awaitLeasesEnded();
        assertTwoRunAgain("uni", tenant, 200);
        InFlightResource.gate(gate).complete(null); // the abandoned calls end too
    }

    /** Waits until {@code n} calls wait in this instance's queue for a slot (observed, never assumed after a sleep). */
    private void queued(int n, String what) {
        dev.slidegate.core.DecisionStore s = store;
        while (!(s instanceof dev.slidegate.core.SlotWaits) && s instanceof dev.slidegate.core.ForwardingStore f) {
            s = f.delegate();
        }
        dev.slidegate.core.SlotWaits slots = (dev.slidegate.core.SlotWaits) s;
        Eventually.eventually(Duration.ofSeconds(5), slots::waiting, m -> m == n, what);
    }

    // max-wait on a concurrency policy: calls wait for the slot without a thread, run one at a time in the order they
    // came as each one before ends, and a call whose max-wait runs out is refused in the concurrency form; a waiting
    // client that goes away takes no slot from the call behind it
    @Test
    void callsWaitForTheSlotInArrivalOrder() throws Exception {
        String tenant = "t-" + newGate();
        String g1 = newGate();
        String g2 = newGate();
        String g3 = newGate();
        var first = send("waits/" + g1, tenant);
        awaitRunning(g1, 1);
        var second = send("waits/" + g2, tenant);
        queued(1, "the second waits in the queue: the third arrives after it");
        var third = send("waits/" + g3, tenant);
        queued(2, "the third waits behind it");
        assertEquals(0, InFlightResource.running(g2) + InFlightResource.running(g3), "both wait while the first runs");
        InFlightResource.gate(g1).complete(null);
        assertEquals(200, first.join().statusCode());
        awaitRunning(g2, 1);
        assertEquals(0, InFlightResource.running(g3), "the third waits for the second");
        InFlightResource.gate(g2).complete(null);
        assertEquals(200, second.join().statusCode());
        awaitRunning(g3, 1);
        // the slot stays taken for longer than a max-wait: a call that waits for it is refused at the end of its wait
        HttpResponse<String> late = send("waits/" + newGate(), tenant).join();
        assertEquals(429, late.statusCode(), late.body());
        assertTrue(late.body().contains("#quota-exceeded") && late.body().contains(" in flight\""), late.body());
        // a waiting client goes away; the call behind it gets the slot when it frees
        String gone = newGate();
        String next = newGate();
        try (Socket s = new Socket(base.getHost(), base.getPort())) {
            s.getOutputStream().write(("GET " + base.getPath() + "waits/" + gone + " HTTP/1.1\r\nHost: localhost\r\nX-Tenant: "
                    + tenant + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            queued(1, "the call whose client goes away waits");
        }
        var after = send("waits/" + next, tenant);
        queued(2, "the next call waits behind it");
        InFlightResource.gate(g3).complete(null);
        assertEquals(200, third.join().statusCode());
        awaitRunning(next, 1);
        assertEquals(0, InFlightResource.running(gone), "the call whose client left never ran");
        InFlightResource.gate(next).complete(null);
        assertEquals(200, after.join().statusCode());
        assertEquals(1, InFlightResource.MOST.get("waits").get(), "never two at once");
        awaitLeasesEnded();
    }

    // issue 56, point 4: a flood of calls waiting for one slot. Each is decided once, takes the slot when its turn
    // comes and runs (the endpoint's own count): before, a waiter admitted ahead of its runner counted its lateness from
    // its asking, so every one that had waited was "late", gave its slot back and queued again at the end (1 000 waiters
    // behind two slots: the first ran 2 s after they freed, most were refused with the slots free)
    @Test
    void aFloodOfWaitersRunsOneByOneAsTheSlotFrees() throws Exception {
        String tenant = "t-" + newGate();
        String holder = newGate();
        var first = send("waits/" + holder, tenant);
        awaitRunning(holder, 1);
        String quick = newGate();
        InFlightResource.gate(quick).complete(null); // each waiter ends as soon as it runs
        int waiters = 100;
        List<CompletableFuture<HttpResponse<String>>> calls = new java.util.ArrayList<>();
        for (int i = 0; i < waiters; i++) {
            calls.add(send("waits/" + quick, tenant));
        }
        Eventually.eventually(Duration.ofSeconds(10), waits::waiting, n -> n == waiters, "every waiter in the waiting room");
        assertEquals(0, InFlightResource.running(quick), "all wait while the first runs");
        int ran = 0;
        try (dev.slidegate.testing.LogCapture log = dev.slidegate.testing.LogCapture.of("dev.slidegate.waits")) {
            InFlightResource.gate(holder).complete(null);
            assertEquals(200, first.join().statusCode());
            for (CompletableFuture<HttpResponse<String>> c : calls) {
                ran += c.join().statusCode() == 200 ? 1 : 0;
            }
            assertTrue(log.lines().stream().noneMatch(l -> l.contains("'in-flight-waits'") && l.contains("too late")),
                    "a waiter that got its slot is never decided again: " + log.lines());
        }
        assertEquals(waiters, ran, "every waiter ran, one by one, within its 3 s of max-wait");
        assertEquals(1, InFlightResource.MOST.get("waits").get(), "never two at once");
        awaitLeasesEnded();
    }

    // a concurrency policy beside a rate policy: a call refused by either holds and charges nothing on the other
    @Test
    void aCallRefusedByOnePolicyChargesNothingOnTheOther() {
        String tenant = "t-" + newGate();
        String first = newGate();
        var a = send("both/" + first, tenant);
        awaitRunning(first, 1);
        HttpResponse<String> busy = send("both/" + newGate(), tenant).join();
        assertEquals(429, busy.statusCode());
        assertTrue(busy.body().contains("#quota-exceeded") && busy.body().contains(" in flight\""), busy.body());
        InFlightResource.gate(first).complete(null);
        assertEquals(200, a.join().statusCode());
        awaitLeasesEnded();
        String second = newGate();
        var b = send("both/" + second, tenant);
        awaitRunning(second, 1); // the rate policy's second permit: the refusal above charged none
        InFlightResource.gate(second).complete(null);
        assertEquals(200, b.join().statusCode());
        awaitLeasesEnded();
        for (int i = 0; i < 2; i++) { // the rate policy refuses now; the lease each call took is ended with it
            HttpResponse<String> limited = send("both/" + newGate(), tenant).join();
            assertEquals(429, limited.statusCode());
            assertTrue(limited.body().contains("#quota-exceeded") && !limited.body().contains(" in flight\""),
                    "refused by the rate, not by a leaked lease: "
                            + limited.body());
            awaitLeasesEnded();
        }
    }

    // the admin shows a key's calls in flight fleet-wide with its oldest lease's age; a reset ends every lease of the key
    @Test
    void theAdminShowsCallsInFlightAndAResetEndsTheirLeases() {
        String tenant = "t-" + newGate();
        String gate = newGate();
        var running = send("uni/" + gate, tenant);
        awaitRunning(gate, 1);
        String keyPath = "/admin/policies/in-flight/keys/hdr:" + tenant;
        io.restassured.RestAssured.given().auth().preemptive().basic("admin", "slidegate-demo").get(keyPath).then()
                .statusCode(200).body("limits[0].limit", org.hamcrest.Matchers.equalTo("2 in flight"))
                .body("limits[0].used", org.hamcrest.Matchers.equalTo(1))
                .body("oldestLeaseMs", org.hamcrest.Matchers.greaterThanOrEqualTo(0));
        io.restassured.RestAssured.given().auth().preemptive().basic("admin", "slidegate-demo").delete(keyPath).then()
                .statusCode(204);
        String after = newGate(); // the running call's slot was given back: two more run beside it
        var a = send("uni/" + after, tenant);
        var b = send("uni/" + after, tenant);
        awaitRunning(after, 2);
        assertEquals(1, InFlightResource.running(gate), "the first call still runs");
        InFlightResource.gate(after).complete(null);
        InFlightResource.gate(gate).complete(null);
        assertEquals(200, a.join().statusCode());
        assertEquals(200, b.join().statusCode());
        assertEquals(200, running.join().statusCode());
        awaitLeasesEnded();
    }

    // overrides as on a rate policy: new limits for a key ("1/30s": 1 in flight, leases of 30 s) take effect for its
    // next call; an exempt key runs beside a full one and takes no slot; a dry-run policy runs every call and holds
    // leases only for those within its limit (none lost, none left)
    @Test
    void overridesAndDryRunApplyToCallsInFlight() {
        String tenant = "t-" + newGate();
        String override = "/admin/policies/in-flight/keys/hdr:" + tenant + "/override";
        admin().contentType("application/json").body("{\"limits\": [\"1/30s\"]}").put(override).then().statusCode(200);
        String gate = newGate();
        var first = send("uni/" + gate, tenant);
        awaitRunning(gate, 1);
        HttpResponse<String> second = send("uni/" + newGate(), tenant).join();
        assertEquals(429, second.statusCode(), "1 in flight for this key: " + second.body());
        assertTrue(second.body().contains("1 call at once") || second.body().contains("1 in flight"), second.body());
        admin().contentType("application/json").body("{\"exempt\": true}").put(override).then().statusCode(200);
        String exempt = newGate();
        var a = send("uni/" + exempt, tenant);
        var b = send("uni/" + exempt, tenant);
        awaitRunning(exempt, 2); // beside the first: 3 run, the key's 2 slots notwithstanding
        // an exempt key is decided under the policy's own limit (2) and counted: the first exempt call took the slot left
        // free, the second ran beside a full key, holding no lease (the store granted none)
        assertEquals(2, leases.inFlight(), "2 leases: the first call's and one exempt call's");
        InFlightResource.gate(exempt).complete(null);
        assertEquals(200, a.join().statusCode());
        assertEquals(200, b.join().statusCode());
        InFlightResource.gate(gate).complete(null);
        assertEquals(200, first.join().statusCode());
        admin().delete(override).then().statusCode(204);
        awaitLeasesEnded();
        assertEquals(0.0, lostLeases(), "an exempt call beside a full key held no lease to lose");
        assertTwoRunAgain("uni", tenant, 200);

        String dry = newGate();
        var c = send("dry/" + dry, tenant);
        var d = send("dry/" + dry, tenant);
        awaitRunning(dry, 2); // 1 at once in dry run: the second runs too
        assertEquals(1, leases.inFlight(), "only the call within the limit holds a lease");
        InFlightResource.gate(dry).complete(null);
        assertEquals(200, c.join().statusCode());
        assertEquals(200, d.join().statusCode());
        awaitLeasesEnded();
        assertEquals(0.0, lostLeases());
    }

    private static io.restassured.specification.RequestSpecification admin() {
        return io.restassured.RestAssured.given().auth().preemptive().basic("admin", "slidegate-demo");
    }

    private static double lostLeases() {
        String metrics = io.restassured.RestAssured.given().get("/q/metrics").asString();
        return metrics.lines().filter(l -> l.startsWith("slidegate_leases_lost_total"))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }

    // limited by configuration alone (paths): 1 at once; the router ends the lease with the response
    @Test
    void aPathPolicyHoldsItsSlotUntilTheResponseEnds() {
        String tenant = "t-" + newGate();
        String gate = newGate();
        var first = send("path/" + gate, tenant);
        awaitRunning(gate, 1);
        HttpResponse<String> second = send("path/" + newGate(), tenant).join();
        assertEquals(429, second.statusCode(), second.body());
        InFlightResource.gate(gate).complete(null);
        assertEquals(200, first.join().statusCode());
        awaitLeasesEnded();
        String again = newGate();
        var next = send("path/" + again, tenant);
        awaitRunning(again, 1);
        InFlightResource.gate(again).complete(null);
        assertEquals(200, next.join().statusCode());
    }

    // a bean method's Uni: its lease ends with its item, and when its subscriber cancels it
    @Test
    void aBeanMethodsUniGivesItsSlotBackWhenDoneOrCancelled() {
        String gate = newGate();
        Cancellable running = work.run(gate).subscribe().with(item -> {
        }, failure -> {
        });
        awaitRunning(gate, 1);
        Throwable refused = work.run(newGate()).subscribe().asCompletionStage().handle((r, e) -> e).join();
        assertTrue(refused != null && refused.getMessage().contains("in-flight-bean"), String.valueOf(refused));
        running.cancel();
        awaitLeasesEnded();
        String next = newGate();
        var done = work.run(next).subscribe().asCompletionStage();
        awaitRunning(next, 1);
        InFlightResource.gate(next).complete(null);
        assertEquals("done", done.join());
        awaitLeasesEnded();
        InFlightResource.gate(gate).complete(null);
    }

    // a call timed out by its caller (Mutiny's timeout cancels what it waits for): its slot comes back at the timeout,
    // though the work it waited for never finished
    @Test
    void aCallTimedOutByItsCallerGivesItsSlotBack() {
        String gate = newGate();
        Throwable timedOut = work.run(gate).ifNoItem().after(Duration.ofMillis(300)).fail().subscribe().asCompletionStage()
                .handle((r, e) -> e).join();
        assertTrue(timedOut != null && timedOut.toString().contains("Timeout"), String.valueOf(timedOut));
        awaitLeasesEnded();
        String next = newGate();
        var done = work.run(next).subscribe().asCompletionStage();
        awaitRunning(next, 1);
        InFlightResource.gate(next).complete(null);
        assertEquals("done", done.join());
        awaitLeasesEnded();
        InFlightResource.gate(gate).complete(null);
    }
}
