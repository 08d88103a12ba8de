package dev.slidegate.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Limit;
import dev.slidegate.api.Policy;
import dev.slidegate.api.Strategy;
import dev.slidegate.core.LimiterStore;
import dev.slidegate.core.StoreContract;
import dev.slidegate.memory.ReferenceStore;
import dev.slidegate.testing.ManualClock;
import dev.slidegate.testing.RedisClients;
import dev.slidegate.testing.RedisServer;
import dev.slidegate.testing.Resp;

/**
 * The shared scenarios against a real redis-server. The clock is the server's {@code TIME}, so time
 * moves by sleeping, and the window is short (600 ms) with steps landing at least 150 ms from an edge.
 *
 * <p>
 * On a shared, busy machine a sleep can end late. Each step is therefore checked by the caller's
 * clock (stamps around the call) against the instant the scenario meant, before its decision is
 * judged: a step more than half an edge late means the scenario proved nothing, and it runs again
 * with new keys ({@link RetryOnStall}, at most 5 times in all, each retry printed). Sleeps wake at
 * absolute instants, so lateness does not add up over a scenario. The scenarios mostly sleep, each on its own
 * keys and timeline, so those of one class run side by side (in the suite's {@code redis-contracts} execution).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@org.junit.jupiter.api.extension.ExtendWith(RetryOnStall.class)
@org.junit.jupiter.api.parallel.Execution(org.junit.jupiter.api.parallel.ExecutionMode.CONCURRENT)
abstract class RedisContract extends StoreContract {

    static {
        // the three contracts run side by side (pom.xml); context propagation's provider is set lazily by
        // whichever first asks, and two asking at once fail ("already set"): set it once, here
        io.smallrye.context.SmallRyeContextManagerProvider.getManager();
    }

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
        this.store = new RedisStore(clients.dataSource(), clients.nodes(), RedisStore.Options.of(Duration.ofSeconds(5)));
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

    /**
     * One scenario's timeline, on the thread that runs it (the scenarios of a class run side by side): the caller's clock
     * ({@code System.nanoTime}) at its instant 0, {@code NONE} until the first step or alignment; its current instant, in
     * microseconds after that origin.
     */
    private static final class Timeline {
        long originNanos = NONE;
        long intendedMicros;
    }

    private final ThreadLocal<Timeline> timeline = ThreadLocal.withInitial(Timeline::new);
    private static final long NONE = Long.MIN_VALUE;

    /** A new scenario (or a new attempt of one) starts its own timeline. */
    @org.junit.jupiter.api.BeforeEach
    void newTimeline() {
        timeline.set(new Timeline());
    }

    @Override
    protected void advance(long micros) {
        Timeline t = timeline.get();
        t.intendedMicros += micros;
        if (t.originNanos == NONE) {
            sleepMicros(micros);
        } else {
            sleepUntil(t.originNanos + t.intendedMicros * 1000);
        }
    }

    @Override
    protected void onTime(long beforeNanos, long afterNanos) {
        Timeline t = timeline.get();
        if (t.originNanos == NONE) { // the first step of a scenario that does not align: instant 0 is when it was answered,
            t.originNanos = afterNanos; // so a later step is never closer to it than the scenario says
            t.intendedMicros = 0;
            return;
        }
        long meant = t.originNanos + t.intendedMicros * 1000;
        long late = afterNanos - meant;
        if (late > edge() * 1000 / 2) {
            throw new Stalled(
                    String.format(java.util.Locale.ROOT, "the step meant for %d ms into the scenario ended %.1f ms after it "
                            + "(margin %d ms)", t.intendedMicros / 1000, late / 1e6, edge() / 2000));
        }
    }

    @Override
    protected void endedWithin(long micros) {
        Timeline t = timeline.get();
        long late = System.nanoTime() - (t.originNanos + micros * 1000);
        if (t.originNanos != NONE && late > 0) {
            throw new Stalled(
                    String.format(java.util.Locale.ROOT, "steps meant to end within %d ms of the scenario ended %.1f ms "
                            + "after that", micros / 1000, late / 1e6));
        }
    }

    @Override
    protected long w() {
        return 600_000;
    }

    @Override
    protected long edge() {
        return 150_000;
    }

    /** Sleeps until 20 to 50 ms after the next multiple of {@code window} on the Redis server's clock. */
    @Override
    protected void alignTo(long window) {
        try (Resp r = server.connect()) {
            @SuppressWarnings("unchecked")
            List<String> time = (List<String>) r.call("TIME");
            long now = Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1));
            long next = (now / window + 1) * window;
            // 20 to 50 ms after it, at random: scenarios that run side by side do not all wake at once (a step meant just
            // before a later edge still lands before it when on time: 150 ms from the edge less 50 ms and half a margin)
            long wait = next - now + 20_000 + java.util.concurrent.ThreadLocalRandom.current().nextLong(30_000);
            Timeline t = timeline.get();
            t.originNanos = System.nanoTime() + wait * 1000;
            t.intendedMicros = 0;
            sleepUntil(t.originNanos);
        }
    }

    // the scripts agree with the reference store on random timelines (random limits, costs, keys,
    // count-rejected, cells and gaps, every strategy; a third of the calls may wait for their permits): each call is
    // replayed into the reference at the
    // instant Redis decided it (the TIME its reply reports), so the two must agree to the microsecond.
    // Overrides come and go as an operator makes them: the limits in force switch between the policy's
    // own and two others (random N and W, a window new or shared), and back, at random steps; every
    // key's windows go on as docs/strategies.md "When limits change" says, exactly as in the reference
    /** Two instances on this contract's Redis, each with its own store and slot queue (issue 40). */
    private dev.slidegate.testing.SlotQueueScenarios.Fleet slotFleet() {
        RedisStore other = new RedisStore(clients.dataSource(), clients.nodes(), RedisStore.Options.of(Duration.ofSeconds(5)));
        return new dev.slidegate.testing.SlotQueueScenarios.Fleet(
                new dev.slidegate.core.SlotWaits(store, System::nanoTime),
                new dev.slidegate.core.SlotWaits(other, System::nanoTime));
    }

    @Test
    void queuedCallsGetTheSlotInArrivalOrderAcrossInstances() throws Exception {
        dev.slidegate.testing.SlotQueueScenarios.queuedCallsGetTheSlotInArrivalOrderAcrossInstances(slotFleet());
    }

    @Test
    void aCallRefusedAtItsMaxWaitLeavesTheQueue() throws Exception {
        dev.slidegate.testing.SlotQueueScenarios.aCallRefusedAtItsMaxWaitLeavesTheQueue(slotFleet());
    }

    @Test
    void theTicketOfAnInstanceThatStoppedAskingLapses() throws Exception {
        dev.slidegate.testing.SlotQueueScenarios.theTicketOfAnInstanceThatStoppedAskingLapses(slotFleet());
    }

    @Test
    void aFloodOfWaitersUsesEverySlotThatFrees() throws Exception {
        dev.slidegate.testing.SlotQueueScenarios.aFloodOfWaitersUsesEverySlotThatFrees(slotFleet());
    }

    // the script's own branch of the sliding log's rule for limits that change (docs/strategies.md, "When limits
    // change"): the key kept alive past its expiry (PERSIST), so the permit that counts nowhere is still in Redis when the
    // longer limit comes; the shared scenario of StoreContract meets an expired key instead
    @Test
    void aLongerLimitThatComesLaterDoesNotCountPermitsThatCountedNowhereWhileTheKeyLives() {
        aLongerLimitComesLater((before, k) -> {
            for (String redisKey : RedisLayout.keys(before, k)) {
                assertEquals(1, clients.dataSource().execute("PERSIST", redisKey).await().indefinitely().toInteger(),
                        "the key lives on: " + redisKey);
            }
        });
    }

    @Test
    void agreesWithTheReferenceOnRandomTimelines() {
        Random random = new Random(20261125);
        ManualClock clock = new ManualClock();
        ReferenceStore reference = new ReferenceStore(clock);
        for (Strategy strategy : Strategy.values()) {
            for (int run = 0; run < 2; run++) {
                String name = "rt-" + newKey();
                boolean countRejected = random.nextBoolean();
                int cells = 1 + random.nextInt(6);
                List<Policy> policies = new ArrayList<>();
                while (policies.size() < 3) {
                    List<Limit> limits = new ArrayList<>();
                    for (int i = 0, count = 1 + random.nextInt(2); i < count; i++) {
                        long w = random.nextInt(3) == 0 && !policies.isEmpty()
                                ? policies.get(0).limits().get(0).windowMicros()
                                : (30 + random.nextInt(60)) * 1000L;
                        limits.add(new Limit(1 + random.nextInt(8), w));
                    }
                    try {
                        policies.add(new Policy(name, limits, strategy, "ip", countRejected, false, cells));
                    } catch (IllegalArgumentException sameWindowTwice) {
                        // draw again
                    }
                }
                Policy p = policies.get(0);
                for (int step = 0; step < 72; step++) {
                    if (step % 24 == 12 || random.nextInt(12) == 0) {
                        p = policies.get(p == policies.get(0) ? 1 + random.nextInt(2) : 0);
                    }
                    if (random.nextInt(4) != 0) {
                        sleepMicros(random.nextInt(12_000));
                    }
                    String key = "k" + random.nextInt(2);
                    int cost = 1 + (random.nextInt(5) == 0 ? random.nextInt(3) : 0);
                    // a third of the calls may wait (issue 38): up to 150 ms, several windows
                    long maxWait = random.nextInt(3) == 0 ? random.nextInt(150_000) : 0;
                    Decision actual = replayed(reference, clock, p, key, cost, maxWait, "step " + step + " of " + p);
                }
            }
        }
    }

    // issue 41: the settle script agrees with the reference on random timelines (the strategies that settle, random limits,
    // costs, keys and cells, a third of the calls waiting; admitted calls settled at random later steps below, at or
    // above their estimate, now and then 1 000 times over, or never): each call and settlement is replayed into the
    // reference at the instant Redis made it, so the two agree to the microsecond
    @Test
    void settlementsAgreeWithTheReferenceOnRandomTimelines() {
        Random random = new Random(20261126);
        ManualClock clock = new ManualClock();
        ReferenceStore reference = new ReferenceStore(clock);
        record Admitted(String key, long at, int estimate) {
        }
        for (Strategy strategy : new Strategy[] { Strategy.FIXED_WINDOW, Strategy.SLIDING_COUNTER, Strategy.TOKEN_BUCKET }) {
            for (int run = 0; run < 2; run++) {
                List<Limit> limits = new ArrayList<>();
                for (int i = 0, count = 1 + random.nextInt(2); i < count; i++) {
                    limits.add(new Limit(2 + random.nextInt(12), (i + 1) * (40 + random.nextInt(60)) * 1000L));
                }
                Policy p = new Policy("st-" + newKey(), limits, strategy, "ip", random.nextInt(4) == 0, false,
                        1 + random.nextInt(6));
                List<Admitted> running = new ArrayList<>();
                for (int step = 0; step < 60; step++) {
                    if (random.nextInt(4) != 0) {
                        sleepMicros(random.nextInt(12_000));
                    }
                    if (!running.isEmpty() && random.nextInt(3) == 0) {
                        Admitted a = running.remove(random.nextInt(running.size()));
                        long actual = switch (random.nextInt(5)) {
                            case 0 -> 0;
                            case 1 -> random.nextInt(a.estimate() + 1);
                            case 2 -> random.nextInt(20) == 0 ? 1000L * a.estimate() : a.estimate() + random.nextInt(8);
                            default -> a.estimate();
                        };
                        settled(reference, clock, p, a.key(), a.at(), a.estimate(), actual);
                        continue;
                    }
                    String key = "k" + random.nextInt(2);
                    int cost = 1 + (random.nextInt(4) == 0 ? random.nextInt(3) : 0);
                    long maxWait = random.nextInt(3) == 0 ? random.nextInt(150_000) : 0;
                    Decision actual = replayed(reference, clock, p, key, cost, maxWait, "step " + step + " of " + p);
                    if (actual.allowed() && random.nextInt(5) != 0) {
                        running.add(new Admitted(key, actual.atMicros(), cost));
                    }
                }
            }
        }
    }

    // issue 41, calendar periods on Redis: the service hands the script the periods around now, and the server's clock
    // picks one. Periods of unequal lengths (150, 260 and 190 ms, repeating: months and days of 23 or 25 hours, made
    // short) go by while random calls (waiting now and then, across several periods), settlements and overrides run;
    // each is replayed into the reference at the instant Redis made it, so the two agree to the microsecond
    @Test
    void calendarPeriodsAgreeWithTheReferenceOnRandomTimelines() {
        Random random = new Random(20261127);
        ManualClock clock = new ManualClock();
        ReferenceStore reference = new ReferenceStore(clock);
        dev.slidegate.api.Periods irregular = new dev.slidegate.testing.IrregularPeriods(0,
                new long[] { 150_000, 260_000, 190_000 }, "irregular");
        for (int run = 0; run < 3; run++) {
            String name = "cal-" + newKey();
            List<Policy> policies = new ArrayList<>();
            for (int k = 0; k < 2; k++) {
                List<Limit> limits = new ArrayList<>();
                limits.add(new Limit(3 + random.nextInt(8), irregular));
                if (random.nextBoolean()) {
                    limits.add(new Limit(2 + random.nextInt(4), (40 + random.nextInt(60)) * 1000L));
                }
                policies.add(new Policy(name, limits, Strategy.FIXED_WINDOW, "ip", random.nextInt(4) == 0, false, 10));
            }
            Policy p = policies.get(0);
            for (int step = 0; step < 60; step++) {
                if (random.nextInt(20) == 0) {
                    p = policies.get(p == policies.get(0) ? 1 : 0);
                }
                if (random.nextInt(4) != 0) {
                    sleepMicros(random.nextInt(30_000));
                }
                String key = "k" + random.nextInt(2);
                int cost = 1 + (random.nextInt(4) == 0 ? random.nextInt(3) : 0);
                long maxWait = random.nextInt(3) == 0 ? random.nextInt(400_000) : 0;
                Decision actual = replayed(reference, clock, p, key, cost, maxWait, "step " + step + " of " + p);
                if (actual.allowed() && random.nextInt(4) == 0) {
                    long used = random.nextInt(3 * cost + 1);
                    settled(reference, clock, p, key, actual.atMicros(), cost, used);
                }
            }
        }
    }

    /** Decides on Redis, then the same call in the reference at the instant Redis decided it: the two must agree. */
    private Decision replayed(ReferenceStore reference, ManualClock clock, Policy p, String key, int cost, long maxWait,
            String where) {
        Decision actual = store().acquire(p, key, cost, maxWait).toCompletableFuture().join();
        clock.set(actual.atMicros() - actual.waitMicros()); // the instant Redis decided at
        assertEquals(reference.acquire(p, key, cost, maxWait).toCompletableFuture().join(), actual,
                where + ", max wait " + maxWait);
        return actual;
    }

    /** Settles on Redis, then in the reference at the instant Redis settled at. */
    private void settled(ReferenceStore reference, ManualClock clock, Policy p, String key, long at, int estimate,
            long actual) {
        clock.set(store().settle(p, key, at, estimate, actual).toCompletableFuture().join());
        reference.settle(p, key, at, estimate, actual).toCompletableFuture().join();
    }

    private static void sleepUntil(long nanoTime) {
        long left = nanoTime - System.nanoTime();
        if (left > 0) {
            sleepMicros(left / 1000);
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
