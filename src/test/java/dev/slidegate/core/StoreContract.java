package dev.slidegate.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.slidegate.api.Decision;
import dev.slidegate.api.Limit;
import dev.slidegate.api.Policy;
import dev.slidegate.api.Strategy;

/**
 * The timeline scenarios every store must pass, written once (STYLE.md 5). Subclasses supply the
 * store and how time moves: a settable clock in process (exact to the microsecond), real time with
 * short windows on Redis.
 *
 * <p>
 * Times are in units of the window W; {@code edge()} is how close to a window edge a step lands:
 * 1 µs with a settable clock, a safe margin in real time.
 */
public abstract class StoreContract {

    private static final AtomicInteger KEYS = new AtomicInteger();

    /** The store under test. */
    protected abstract LimiterStore store();

    /** Moves time forward by {@code micros}. */
    protected abstract void advance(long micros);

    /** The window W of the scenarios, in microseconds. */
    protected abstract long w();

    /** How close to an edge a step lands, in microseconds. */
    protected abstract long edge();

    /** Moves time to just after the start of an epoch-aligned window of length {@code window}. */
    protected abstract void alignTo(long window);

    /** Whether retry-after and reset can be asserted to the microsecond (settable clock). */
    protected boolean exactTime() {
        return false;
    }

    protected final String newKey() {
        return "k" + KEYS.incrementAndGet();
    }

    protected final Policy policy(Strategy strategy, boolean countRejected, String... limits) {
        List<Limit> parsed = java.util.Arrays.stream(limits).map(Limit::parse).toList();
        return new Policy("p" + KEYS.incrementAndGet(), parsed, strategy, "ip", countRejected);
    }

    /** A policy of calls in flight: {@code limit} is N and the lease time. */
    protected final Policy inFlight(String limit) {
        Limit l = Limit.parse(limit);
        return Policy.inFlight("p" + KEYS.incrementAndGet(), l.permits(), l.windowMicros(), "ip");
    }

    /** A limit text for {@code n} permits per {@code multiple} windows W. */
    protected final String lim(int n, int multiple) {
        return n + "/" + (w() * multiple / 1000) + "ms";
    }

    protected final Decision call(Policy p, String key, int cost) {
        long before = System.nanoTime();
        Decision d = (p.inFlight() ? store().enter(p, key, 0) : store().acquire(p, key, cost)).toCompletableFuture().join();
        onTime(before, System.nanoTime());
        return d;
    }

    /**
     * Called after each step's call with the caller's clock before and after it ({@code System.nanoTime}),
     * before the step's decision is judged: a store that runs in real time checks here that the step
     * ran when the scenario meant it to, and throws {@link Stalled} when it did not.
     */
    protected void onTime(long beforeNanos, long afterNanos) {
    }

    /**
     * Called after steps that are not timed one by one but whose result depends on their having ended before
     * {@code micros} into the scenario (keys that expire): a store that runs in real time throws {@link Stalled}
     * when they did not.
     */
    protected void endedWithin(long micros) {
    }

    /** A step ran outside its margin (a stalled machine): the scenario proves nothing this time and runs again. */
    public static final class Stalled extends RuntimeException {
        public Stalled(String message) {
            super(message, null, false, false);
        }
    }

    protected final Decision call(Policy p, String key) {
        return call(p, key, 1);
    }

    private void assertAdmitted(Decision d, long remaining) {
        assertTrue(d.allowed(), () -> "expected admitted: " + d);
        assertEquals(remaining, d.remaining(), () -> "remaining: " + d);
        assertEquals(-1, d.trippedIndex());
        assertEquals(0, d.retryAfterMicros());
    }

    private void assertRefused(Decision d, int tripped) {
        assertFalse(d.allowed(), () -> "expected refused: " + d);
        assertEquals(tripped, d.trippedIndex(), () -> "tripped limit: " + d);
        assertTrue(d.retryAfterMicros() > 0, () -> "retry-after: " + d);
    }

    // a hold of W: no call placed before its end (refused at once, or waiting for it), nothing charged, never shortened
    @ParameterizedTest
    @EnumSource(Strategy.class)
    void aHoldPlacesNoCallBeforeItsEnd(Strategy s) {
        // a day-long window: a fixed window does not roll over during the scenario (but at midnight UTC), and a token
        // bucket refills one permit in 864 s: none here
        Policy p = policy(s, false, "100/1d");
        String k = newKey();
        assertAdmitted(call(p, k), 99);
        assertEquals(0L, store().heldFor(p, k).toCompletableFuture().join());
        long held = store().hold(p, k, w()).toCompletableFuture().join();
        assertTrue(held > 0 && held <= w(), () -> "held for " + held);
        long left = store().heldFor(p, k).toCompletableFuture().join();
        assertTrue(left > 0 && left <= held, () -> "still held for " + left + " of " + held);
        assertEquals(99, store().peek(p, k).toCompletableFuture().join().remaining(), "a hold charges nothing");
        long shorter = store().hold(p, k, 1).toCompletableFuture().join();
        assertTrue(shorter > 0 && shorter <= left, () -> "a shorter hold left it held for " + shorter);
        assertTrue(shorter > w() - edge(), () -> "a shorter hold shortened it to " + shorter);

        Decision refused = call(p, k);
        assertFalse(refused.allowed(), () -> "a call that may not wait is refused while the key is held: " + refused);
        assertTrue(refused.retryAfterMicros() > 0 && refused.retryAfterMicros() <= w(), () -> "retry-after: " + refused);
        long before = System.nanoTime();
        Decision waiting = store().acquire(p, k, 1, 2 * w()).toCompletableFuture().join();
        onTime(before, System.nanoTime());
        assertTrue(waiting.allowed(), () -> "a call that may wait is placed at the hold's end: " + waiting);
        assertTrue(waiting.waitMicros() > w() - edge() && waiting.waitMicros() <= w(), () -> "wait: " + waiting);
        long stillHeld = store().heldFor(p, k).toCompletableFuture().join();
        assertTrue(stillHeld > 0, "a call placed at the hold's end leaves the hold said until it ends (calls that waited "
                + "before it ask for it): " + stillHeld);
        if (exactTime()) {
            assertEquals(w(), refused.retryAfterMicros());
            assertEquals(w(), waiting.waitMicros());
        }
        assertEquals(0L, store().heldFor(p, newKey()).toCompletableFuture().join(), "another key is not held");

        advance(w() + edge());
        assertEquals(0L, store().heldFor(p, k).toCompletableFuture().join());
        assertAdmitted(call(p, k), 97);
    }

    // a block (block-for) holds a key that is not held, and does not grow while the key is held: a blocked caller who
    // keeps calling is blocked until the first block's end, on every store
    @ParameterizedTest
    @EnumSource(Strategy.class)
    void aBlockDoesNotGrowWhileTheKeyIsHeld(Strategy s) {
        Policy p = policy(s, false, "100/1d");
        String k = newKey();
        assertAdmitted(call(p, k), 99);
        long blocked = store().block(p, k, w()).toCompletableFuture().join();
        assertTrue(blocked > 0 && blocked <= w(), () -> "blocked for " + blocked);
        assertFalse(call(p, k).allowed(), "a blocked key's call is refused");
        advance(w() / 2);
        long again = store().block(p, k, w()).toCompletableFuture().join();
        assertTrue(again > 0 && again <= w() / 2 + edge(),
                () -> "a block while blocked left it " + again + " (first: " + blocked
                        + "), not a new block of " + w());
        advance(w() / 2 + edge());
        assertEquals(0L, store().heldFor(p, k).toCompletableFuture().join(), "the block ended when the first one did");
        assertAdmitted(call(p, k), 98);
        long anew = store().block(p, k, w()).toCompletableFuture().join();
        assertTrue(anew > w() - edge(), () -> "a block after the last one ended is a whole one: " + anew);
    }

    @org.junit.jupiter.api.Test
    void aHoldOfNothingOrOfMoreThanADayIsRefused() {
        Policy p = policy(Strategy.SLIDING_LOG, false, lim(1, 1));
        for (long bad : new long[] { 0, -1, dev.slidegate.api.Policy.MAX_WAIT_LIMIT_MICROS + 1 }) {
            IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                    () -> store().hold(p, newKey(), bad));
            assertTrue(e.getMessage().contains("between 1 us and one day"), e.getMessage());
        }
    }

    // limits learned from an upstream: kept for the policy's name and key, read under any limits of that policy, replaced,
    // forgotten, expired; they count nothing and decide nothing by themselves
    @Test
    void learnedLimitsAreKeptForTheKeyUntilForgottenOrExpired() {
        Policy p = policy(Strategy.SLIDING_LOG, false, lim(10, 1));
        Policy paced = p.withLimits(List.of(Limit.parse(lim(3, 1)))); // the same policy paced at other limits
        String k = newKey();
        assertEquals(List.of(), store().learned(p, k).toCompletableFuture().join());
        List<Limit> limits = List.of(Limit.parse(lim(5, 1)), Limit.parse(lim(50, 60)));
        // kept 20 W here: these reads judge what is kept, not when it expires (the last step does, on time), and a machine
        // that stalled 2 W between the learn and a read (seen once on a loaded CI run) made the key's limits expire first
        store().learn(p, k, limits, 20 * w()).toCompletableFuture().join();
        assertEquals(limits, store().learned(p, k).toCompletableFuture().join());
        assertEquals(limits, store().learned(paced, k).toCompletableFuture().join(), "read by the policy's name");
        assertEquals(List.of(), store().learned(p, newKey()).toCompletableFuture().join(), "another key learned nothing");
        assertEquals(List.of(), store().learned(policy(Strategy.SLIDING_LOG, false, lim(10, 1)), k).toCompletableFuture()
                .join(), "another policy learned nothing");
        assertAdmitted(call(p, k), 9); // the store decides under the limits it is given

        List<Limit> lower = List.of(Limit.parse(lim(2, 1)));
        store().learn(p, k, lower, 20 * w()).toCompletableFuture().join();
        assertEquals(lower, store().learned(p, k).toCompletableFuture().join(), "replaced");
        store().learn(p, k, List.of(), w()).toCompletableFuture().join();
        assertEquals(List.of(), store().learned(p, k).toCompletableFuture().join(), "forgotten");

        store().learn(p, k, lower, w()).toCompletableFuture().join();
        store().reset(p, k).toCompletableFuture().join();
        assertEquals(List.of(), store().learned(p, k).toCompletableFuture().join(), "a reset forgets what a key learned");

        long before = System.nanoTime();
        store().learn(p, k, lower, w()).toCompletableFuture().join();
        onTime(before, System.nanoTime()); // a learn that reached the store late expires late: that step runs again
        advance(w() + edge());
        assertEquals(List.of(), store().learned(p, k).toCompletableFuture().join(), "expired");
    }

    @Test
    void learnedLimitsBeyondTheirBoundsAreRefused() {
        Policy p = policy(Strategy.FIXED_WINDOW, false, lim(1, 1));
        List<Limit> one = List.of(Limit.parse(lim(1, 1)));
        for (long bad : new long[] { 0, -1, Policy.MAX_WAIT_LIMIT_MICROS + 1 }) {
            IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                    () -> store().learn(p, newKey(), one, bad));
            assertTrue(e.getMessage().contains("between 1 us and one day"), e.getMessage());
        }
        List<Limit> many = java.util.Collections.nCopies(DecisionStore.MAX_LEARNED_LIMITS + 1, one.get(0));
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> store().learn(p, newKey(), many, w()));
        assertTrue(e.getMessage().contains("at most " + DecisionStore.MAX_LEARNED_LIMITS), e.getMessage());
    }

    /** The message of the {@link IllegalArgumentException} a store raised, at once or through the stage it returned. */
    private static String refusedArgument(java.util.function.Supplier<java.util.concurrent.CompletionStage<?>> call) {
        try {
            call.get().toCompletableFuture().join();
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        } catch (java.util.concurrent.CompletionException e) {
            if (e.getCause() instanceof IllegalArgumentException cause) {
                return cause.getMessage();
            }
            throw e;
        }
        throw new AssertionError("expected an IllegalArgumentException");
    }

    /** Renews, timed as a step: a renewal that reached the store late (a stalled machine) makes the scenario run again. */
    private List<Long> renew(Policy p, String k, Long... leases) {
        long before = System.nanoTime();
        List<Long> lost = store().renew(p, k, List.of(leases)).toCompletableFuture().join();
        onTime(before, System.nanoTime());
        return lost;
    }

    private List<Long> leave(Policy p, String k, Long... leases) {
        return store().leave(p, k, List.of(leases)).toCompletableFuture().join();
    }

    // calls in flight: N leases at once per key; one that ends frees its slot at once; a reset ends them all
    @Test
    void callsInFlightTakeLeasesUpToNAndFreeThemWhenTheyEnd() {
        Policy p = inFlight(lim(2, 1000)); // leases of 1000 W: none expires here
        String k = newKey();
        Decision first = call(p, k);
        assertAdmitted(first, 1);
        Decision second = call(p, k);
        assertAdmitted(second, 0);
        org.junit.jupiter.api.Assertions.assertNotEquals(first.atMicros(), second.atMicros(),
                "each lease has a name of its own");
        Decision third = call(p, k);
        assertRefused(third, 0);
        assertEquals(0, third.remaining());
        assertEquals(InFlightSlots.inFlightRetryMicros(p), third.retryAfterMicros(), "a refused caller asks again after 1 s");
        assertEquals(0, store().peek(p, k).toCompletableFuture().join().remaining(),
                "a refusal takes no slot, and a peek none");
        assertAdmitted(call(p, newKey()), 1); // another key has slots of its own

        assertEquals(List.of(), leave(p, k, first.atMicros()), "the first call ends");
        assertEquals(1, store().peek(p, k).toCompletableFuture().join().remaining());
        Decision fourth = call(p, k);
        assertAdmitted(fourth, 0);
        assertEquals(List.of(first.atMicros()), leave(p, k, first.atMicros()), "a lease ends once");
        assertEquals(List.of(first.atMicros()), renew(p, k, first.atMicros(), second.atMicros()),
                "an ended lease is not renewed; a live one is");
        assertRefused(call(p, k), 0);

        store().reset(p, k).toCompletableFuture().join();
        assertEquals(List.of(second.atMicros(), fourth.atMicros()), leave(p, k, second.atMicros(), fourth.atMicros()),
                "a reset ended every lease of the key");
        assertAdmitted(call(p, k), 1);
        assertAdmitted(call(p, k), 0);
    }

    // a lease lives for the lease time W unless renewed; a renewed one lives W from its renewal; an expired one is lost
    @Test
    void aLeaseThatIsNotRenewedExpiresAfterTheLeaseTime() {
        Policy p = inFlight(lim(1, 1));
        String k = newKey();
        Decision lease = call(p, k);
        assertAdmitted(lease, 0);
        advance(w() - edge());
        assertEquals(List.of(), renew(p, k, lease.atMicros()), "renewed before it expired");
        advance(w() - edge()); // past the first lease time, within the renewed one
        assertRefused(call(p, k), 0);
        advance(2 * edge());
        Decision next = call(p, k);
        assertAdmitted(next, 0);
        assertEquals(List.of(lease.atMicros()), renew(p, k, lease.atMicros()), "expired: lost, and its call is told so");
        assertEquals(List.of(lease.atMicros()), leave(p, k, lease.atMicros()), "ending an expired lease frees nothing");
        assertRefused(call(p, k), 0);
        assertEquals(List.of(), leave(p, k, next.atMicros()));
        assertAdmitted(call(p, k), 0);
    }

    @Test
    void callsInFlightRefuseWhatTheyCannotCount() {
        Policy p = inFlight(lim(2, 1));
        Policy rate = policy(Strategy.FIXED_WINDOW, false, lim(2, 1));
        String k = newKey();
        assertTrue(refusedArgument(() -> store().acquire(p, k, 1)).contains("limits calls in flight"));
        assertTrue(refusedArgument(() -> store().enter(rate, k, 0)).contains("not calls in flight"));
        assertTrue(refusedArgument(() -> store().renew(rate, k, List.of(1L))).contains("not calls in flight"));
        assertTrue(refusedArgument(() -> store().leave(p, k, List.of())).contains("1 to 1000 leases"));
        assertTrue(refusedArgument(() -> store().hold(p, k, w())).contains("calls in flight"));
        assertEquals(2, store().peek(p, k).toCompletableFuture().join().remaining(), "nothing taken");
    }

    // t=0 x5 admitted (remaining 4..0), 6th refused with retry-after W
    @ParameterizedTest
    @EnumSource(Strategy.class)
    void admitsUpToNThenRefuses(Strategy s) {
        Policy p = policy(s, false, lim(5, 1));
        String k = newKey();
        alignTo(w());
        for (int i = 4; i >= 0; i--) {
            assertAdmitted(call(p, k), i);
        }
        Decision refused = call(p, k);
        assertRefused(refused, 0);
        assertEquals(0, refused.remaining());
        // when the first permit can be had again: the log's entry leaves (one tick after W: a permit at
        // tick t counts through t + W), the window ends, the oldest counted cell (of 10) drops, the
        // bucket refills one permit (W / 5)
        long expected = switch (s) {
            case SLIDING_LOG -> w() + 1;
            case FIXED_WINDOW -> w() - edge();
            case SLIDING_COUNTER -> w() + w() / 10 - edge();
            case TOKEN_BUCKET -> w() / 5;
        };
        assertTrue(refused.retryAfterMicros() <= expected + edge(), refused.retryAfterMicros() + " > " + expected);
        if (exactTime()) {
            assertEquals(expected, refused.retryAfterMicros());
        }
    }

    // t=0 x5; t=W-edge refused; t=W+edge x5 admitted again, 6th refused
    @ParameterizedTest
    @EnumSource(value = Strategy.class, names = { "SLIDING_LOG", "FIXED_WINDOW" })
    void permitsReturnWhenTheWindowHasPassed(Strategy s) {
        Policy p = policy(s, false, lim(5, 1));
        String k = newKey();
        alignTo(w());
        for (int i = 0; i < 5; i++) {
            assertTrue(call(p, k).allowed());
        }
        advance(w() - 3 * edge());
        Decision refused = call(p, k);
        assertRefused(refused, 0);
        if (exactTime()) {
            assertEquals(s == Strategy.SLIDING_LOG ? 3 * edge() + 1 : 2 * edge(), refused.retryAfterMicros());
        }
        advance(4 * edge());
        for (int i = 4; i >= 0; i--) {
            assertAdmitted(call(p, k), i);
        }
        assertRefused(call(p, k), 0);
    }

    // sliding log, 5/W: t=0 x1; t=W/2 x4; t=W+edge: the t=0 permit left (it counts through tick W), so
    // exactly one more fits.
    // (A fixed window would admit five here: the 2N burst at an edge.)
    @Test
    void slidingLogAdmitsNoBurstAcrossAWindowEdge() {
        Policy p = policy(Strategy.SLIDING_LOG, false, lim(5, 1));
        String k = newKey();
        assertTrue(call(p, k).allowed());
        advance(w() / 2);
        for (int i = 0; i < 4; i++) {
            assertTrue(call(p, k).allowed());
        }
        advance(w() / 2 + edge());
        assertAdmitted(call(p, k), 0);
        Decision refused = call(p, k);
        assertRefused(refused, 0);
        if (exactTime()) {
            assertEquals(w() / 2 - edge() + 1, refused.retryAfterMicros());
        }
    }

    // sliding log, 2/W, then (an override) 2/W and 2/4W: t=0 x1 under 2/W; t=W+edge the new limits: the t=0 permit had
    // left every window the key counted before they came, so it counts nowhere, in the longer window either (as a new
    // limit of another strategy starts from what the slots hold then). Stores agree whenever the key expired or not.
    @Test
    void aLongerLimitThatComesLaterDoesNotCountPermitsThatCountedNowhere() {
        aLongerLimitComesLater((p, k) -> {
        });
    }

    /**
     * The scenario above, with {@code afterFirstCall} run on the first call's policy and key before time moves on (a
     * store may keep the key alive there).
     */
    protected final void aLongerLimitComesLater(java.util.function.BiConsumer<Policy, String> afterFirstCall) {
        Policy before = policy(Strategy.SLIDING_LOG, false, lim(2, 1));
        Policy after = new Policy(before.name(), List.of(Limit.parse(lim(2, 1)), Limit.parse(lim(2, 4))),
                Strategy.SLIDING_LOG, "ip", false);
        String k = newKey();
        assertTrue(call(before, k).allowed());
        afterFirstCall.accept(before, k);
        advance(w() + edge());
        Decision d = call(after, k);
        assertTrue(d.allowed(), () -> "expected admitted: " + d);
        assertEquals(1, d.states().get(1).remaining(), () -> "the longer limit counts only this call: " + d);
        Decision second = call(after, k);
        assertTrue(second.allowed(), () -> "a second fits beside it: " + second);
        assertEquals(0, second.states().get(1).remaining(), () -> "the longer limit counts both: " + second);
    }

    // fixed window, 5/W: t=W-edge x5, t=W+edge x5: all admitted, 10 in 2*edge. Documented behaviour.
    @Test
    void fixedWindowAdmitsTwoWindowsWorthAroundAnEdge() {
        Policy p = policy(Strategy.FIXED_WINDOW, false, lim(5, 1));
        String k = newKey();
        alignTo(w());
        advance(w() - 3 * edge());
        for (int i = 0; i < 5; i++) {
            assertTrue(call(p, k).allowed());
        }
        assertRefused(call(p, k), 0);
        advance(4 * edge());
        for (int i = 4; i >= 0; i--) {
            assertAdmitted(call(p, k), i);
        }
    }

    private List<Decision> together(Rates.Asked... asks) {
        long before = System.nanoTime();
        List<Decision> made = store().acquireAll(List.of(asks)).toCompletableFuture().join();
        onTime(before, System.nanoTime());
        return made;
    }

    private long remaining(Policy p, String k) {
        return store().peek(p, k).toCompletableFuture().join().remaining();
    }

    // a call of a user's policy (3 a day) and its tenant's (2 a day), keys unlike: both charged while both admit; refused
    // by either, charged by none (the user's window, the tenant's, another user's of that tenant, a counting policy's)
    @ParameterizedTest
    @EnumSource(Strategy.class)
    void aCallOfSeveralPoliciesIsChargedByAllOrByNone(Strategy s) {
        Policy user = policy(s, false, "3/1d");
        Policy tenant = policy(s, false, "2/1d");
        String u = newKey();
        String t = newKey();
        for (int i = 0; i < 2; i++) {
            List<Decision> made = together(new Rates.Asked(user, u, 1, 0), new Rates.Asked(tenant, t, 1, 0));
            assertEquals(2, made.size(), () -> "admitted by both: " + made);
            assertTrue(made.get(0).allowed() && made.get(1).allowed(), () -> "admitted by both: " + made);
            assertEquals(user.name(), made.get(0).policy().name());
            assertEquals(1 - i, made.get(1).remaining());
        }
        List<Decision> refused = together(new Rates.Asked(user, u, 1, 0), new Rates.Asked(tenant, t, 1, 0));
        assertEquals(1, refused.size(), () -> "one refusal: " + refused);
        assertFalse(refused.get(0).allowed());
        assertEquals(tenant.name(), refused.get(0).policy().name(), "the refusal names the policy that refused");
        assertTrue(refused.get(0).retryAfterMicros() > 0, () -> "retry-after: " + refused);
        assertEquals(1, remaining(user, u), "refused by the tenant: the user's window is not charged");

        String other = newKey();
        assertFalse(together(new Rates.Asked(user, other, 1, 0), new Rates.Asked(tenant, t, 1, 0)).get(0).allowed());
        assertEquals(3, remaining(user, other), "another user of the full tenant is charged nothing");

        String emptyTenant = newKey();
        assertEquals(2, together(new Rates.Asked(user, u, 1, 0), new Rates.Asked(tenant, emptyTenant, 1, 0)).size());
        assertEquals(0, remaining(user, u));
        List<Decision> byUser = together(new Rates.Asked(user, u, 1, 0), new Rates.Asked(tenant, emptyTenant, 1, 0));
        assertEquals(user.name(), byUser.get(0).policy().name(), () -> "refused by the user: " + byUser);
        assertFalse(byUser.get(0).allowed());
        assertEquals(1, remaining(tenant, emptyTenant), "refused by the user: the tenant's window is not charged");

        if (s == Strategy.SLIDING_LOG || s == Strategy.FIXED_WINDOW) { // a policy that counts refused calls, alone
            Policy counting = policy(s, true, "5/1d");
            String c = newKey();
            assertFalse(together(new Rates.Asked(counting, c, 1, 0), new Rates.Asked(tenant, t, 1, 0)).get(0).allowed());
            assertEquals(5, remaining(counting, c), "a refused call of several policies charges none, count-rejected too");
        }
    }

    // a call that waited for its permit and will not run on it (its upstream's pause caught it: UpstreamStage) gives it
    // back: the next call is placed at that permit, not a window after it, and only what it took comes back
    @ParameterizedTest
    @EnumSource(Strategy.class)
    void aReservedPermitGivenBackIsTheNextCallers(Strategy s) {
        Policy p = policy(s, false, lim(1, 1));
        String k = newKey();
        assertTrue(call(p, k).allowed());
        Decision reserved = store().acquire(p, k, 1, 3 * w()).toCompletableFuture().join();
        assertTrue(reserved.allowed() && reserved.waitMicros() > 0, () -> "placed at the next permit: " + reserved);
        store().giveBack(p, k, reserved.atMicros(), 1).toCompletableFuture().join();
        Decision next = store().acquire(p, k, 1, 3 * w()).toCompletableFuture().join();
        assertTrue(next.allowed(), () -> "placed: " + next);
        assertTrue(next.waitMicros() <= reserved.waitMicros(),
                () -> "the permit given back is the next call's: " + next + " after " + reserved);
        Decision after = store().acquire(p, k, 1, 3 * w()).toCompletableFuture().join();
        assertTrue(after.allowed() && after.waitMicros() > next.waitMicros(),
                () -> "one permit came back, no more: " + after + " after " + next);
        if (s == Strategy.SLIDING_LOG || s == Strategy.TOKEN_BUCKET) {
            assertTrue(after.waitMicros() >= next.waitMicros() + w() - edge(), () -> "a window later: " + after);
        }
    }

    // a call that may wait for its user's permit (1 per W) is placed, with its tenant's (which has room now), at the
    // instant the user's frees: both decisions at that one instant, both charged there
    @ParameterizedTest
    @EnumSource(value = Strategy.class, names = { "SLIDING_LOG", "SLIDING_COUNTER", "TOKEN_BUCKET" })
    void aCallOfSeveralPoliciesWaitsForTheLatestAndAllAreChargedThere(Strategy s) {
        Policy user = policy(s, false, lim(1, 1));
        Policy tenant = policy(s, false, "10/1d");
        String u = newKey();
        String t = newKey();
        assertTrue(call(user, u).allowed());
        List<Decision> made = together(new Rates.Asked(user, u, 1, 3 * w()), new Rates.Asked(tenant, t, 1, 0));
        assertEquals(2, made.size(), () -> "admitted by both: " + made);
        assertTrue(made.get(0).allowed() && made.get(1).allowed(), () -> "admitted by both: " + made);
        assertTrue(made.get(0).waitMicros() > 0 && made.get(0).waitMicros() <= 2 * w() + edge(),
                () -> "waits for the user's permit: " + made);
        assertEquals(made.get(0).atMicros(), made.get(1).atMicros(), () -> "one instant for both: " + made);
        assertEquals(9, remaining(tenant, t), "the tenant charged at that instant");
        if (exactTime()) {
            assertEquals(made.get(0).waitMicros(), made.get(1).waitMicros());
        }
        List<Decision> tooLong = together(new Rates.Asked(user, u, 1, 0), new Rates.Asked(tenant, t, 1, 0));
        assertFalse(tooLong.get(0).allowed(), () -> "no room for the user now: " + tooLong);
        assertEquals(9, remaining(tenant, t), "refused: the tenant not charged");
    }

    // 2/W and 3/2W: t=0 x2 admitted, x3 refused by the first limit (charging neither);
    // t=W+edge: 1 admitted (the second limit held only 2), then refused by the second limit.
    @ParameterizedTest
    @EnumSource(value = Strategy.class, names = { "SLIDING_LOG", "FIXED_WINDOW" })
    void allLimitsAreCheckedAndChargedTogether(Strategy s) {
        Policy p = policy(s, false, lim(2, 1), lim(3, 2));
        String k = newKey();
        alignTo(2 * w());
        assertAdmitted(call(p, k), 1);
        Decision second = call(p, k);
        assertAdmitted(second, 0);
        assertEquals(0, second.states().get(0).remaining());
        assertEquals(1, second.states().get(1).remaining());
        for (int i = 0; i < 3; i++) {
            Decision refused = call(p, k);
            assertRefused(refused, 0);
            assertEquals(1, refused.states().get(1).remaining(),
                    "a call refused by the first limit must not charge the second");
        }
        advance(w() + edge());
        Decision third = call(p, k);
        assertTrue(third.allowed(), () -> "third: " + third);
        assertEquals(0, third.states().get(1).remaining());
        assertRefused(call(p, k), 1);
    }

    // count-rejected, 3/W: t=0 x3 admitted; t=W/2 one refused attempt (charged);
    // t=W+edge: the three left, the refused attempt still counts: 2 admitted, then refused.
    @ParameterizedTest
    @EnumSource(value = Strategy.class, names = { "SLIDING_LOG", "FIXED_WINDOW" })
    void countRejectedChargesRefusedAttempts(Strategy s) {
        Policy counting = policy(s, true, lim(3, 1));
        Policy plain = policy(s, false, lim(3, 1));
        String k = newKey();
        alignTo(w());
        for (int i = 0; i < 3; i++) {
            assertTrue(call(counting, k).allowed());
            assertTrue(call(plain, k).allowed());
        }
        advance(w() / 2);
        assertRefused(call(counting, k), 0);
        assertRefused(call(plain, k), 0);
        advance(w() / 2 + edge());
        int countingAdmitted = 0;
        int plainAdmitted = 0;
        for (int i = 0; i < 4; i++) {
            countingAdmitted += call(counting, k).allowed() ? 1 : 0;
            plainAdmitted += call(plain, k).allowed() ? 1 : 0;
        }
        assertEquals(s == Strategy.SLIDING_LOG ? 2 : 3, countingAdmitted, "count-rejected admitted");
        assertEquals(3, plainAdmitted, "without count-rejected refused attempts cost nothing");
    }

    // count-rejected keeps a caller who never stops out; without it the caller still gets N per window
    @Test
    void withoutCountRejectedAPersistentCallerIsNotStarved() {
        Policy p = policy(Strategy.SLIDING_LOG, false, lim(2, 1));
        String k = newKey();
        int admitted = 0;
        for (int step = 0; step < 8; step++) { // four windows, two attempts... per half window
            for (int i = 0; i < 3; i++) {
                admitted += call(p, k).allowed() ? 1 : 0;
            }
            advance(w() / 2 + (step % 2 == 0 ? edge() : 0));
        }
        assertEquals(8, admitted, "2 per window over 4 windows");
    }

    // 5/W: cost 3 admitted (2 left), cost 3 refused, cost 2 admitted (0 left), cost 6 can never pass
    @ParameterizedTest
    @EnumSource(Strategy.class)
    void costTakesSeveralPermits(Strategy s) {
        Policy p = policy(s, false, lim(5, 1));
        String k = newKey();
        alignTo(w());
        assertAdmitted(call(p, k, 3), 2);
        assertRefused(call(p, k, 3), 0);
        assertAdmitted(call(p, k, 2), 0);
        Policy other = policy(s, false, lim(5, 1));
        assertRefused(call(other, k, 6), 0);
        assertEquals(5, call(other, k, 1).remaining() + 1, "a refused oversize call charged nothing");
    }

    @ParameterizedTest
    @EnumSource(Strategy.class)
    void keysAndPoliciesAreIndependent(Strategy s) {
        Policy p = policy(s, false, lim(2, 1));
        Policy q = policy(s, false, lim(2, 1));
        String a = newKey();
        String b = newKey();
        alignTo(w());
        call(p, a);
        call(p, a);
        assertRefused(call(p, a), 0);
        assertAdmitted(call(p, b), 1);
        assertAdmitted(call(q, a), 1);
    }

    @ParameterizedTest
    @EnumSource(Strategy.class)
    void resetForgetsAKey(Strategy s) {
        Policy p = policy(s, false, lim(2, 1));
        String k = newKey();
        alignTo(w());
        call(p, k);
        call(p, k);
        assertRefused(call(p, k), 0);
        store().reset(p, k).toCompletableFuture().join();
        assertAdmitted(call(p, k), 1);
    }

    // sliding log 5/W: t=0 x2 -> 3 left, next permit frees at W + 1 tick; t=W/2 x1 -> 2 left, still at
    // W + 1 (t=0 oldest)
    @Test
    void statesReportRemainingAndTimeToTheNextFreePermit() {
        Policy p = policy(Strategy.SLIDING_LOG, false, lim(5, 1), lim(8, 4));
        String k = newKey();
        call(p, k);
        Decision d = call(p, k);
        assertEquals(3, d.states().get(0).remaining());
        assertEquals(6, d.states().get(1).remaining());
        advance(w() / 2);
        d = call(p, k);
        assertEquals(2, d.states().get(0).remaining());
        assertEquals(5, d.states().get(1).remaining());
        long reset = d.states().get(0).resetMicros();
        assertTrue(reset > 0 && reset <= w() / 2 + 1, "reset " + reset);
        if (exactTime()) {
            assertEquals(w() / 2 + 1, reset);
            assertEquals(4 * w() - w() / 2 + 1, d.states().get(1).resetMicros());
        }
    }

    // fixed window 3/W: windows start on multiples of W; t=edge x3, 4th refused until the next window
    @Test
    void fixedWindowCountsPerEpochAlignedWindow() {
        Policy p = policy(Strategy.FIXED_WINDOW, false, lim(3, 1));
        String k = newKey();
        alignTo(w());
        for (int i = 2; i >= 0; i--) {
            assertAdmitted(call(p, k), i);
        }
        Decision refused = call(p, k);
        assertRefused(refused, 0);
        assertTrue(refused.retryAfterMicros() < w());
        if (exactTime()) {
            assertEquals(w() - edge(), refused.retryAfterMicros());
            assertEquals(w() - edge(), refused.states().get(0).resetMicros());
        }
        advance(w());
        assertAdmitted(call(p, k), 2);
    }

    // every strategy, one instant: 2/W and 3/10W; x2 admitted, then refusals by the first limit charge
    // the second nothing
    @ParameterizedTest
    @EnumSource(Strategy.class)
    void aRefusalByOneLimitChargesNoOther(Strategy s) {
        Policy p = policy(s, false, lim(2, 1), lim(3, 10));
        String k = newKey();
        alignTo(w());
        call(p, k);
        assertEquals(1, call(p, k).states().get(1).remaining());
        for (int i = 0; i < 3; i++) {
            Decision refused = call(p, k);
            assertRefused(refused, 0);
            assertEquals(1, refused.states().get(1).remaining());
        }
    }

    // three limits, the last the tightest: once it refuses, the two before it are charged nothing,
    // however often the caller retries (all or nothing when a later limit trips, not only the first)
    @ParameterizedTest
    @EnumSource(Strategy.class)
    void aRefusalByALaterLimitChargesNoEarlierOne(Strategy s) {
        Policy p = policy(s, false, lim(6, 1), lim(6, 2), lim(2, 10));
        String k = newKey();
        alignTo(w());
        call(p, k);
        Decision second = call(p, k);
        assertTrue(second.allowed(), () -> "second: " + second);
        assertEquals(0, second.states().get(2).remaining());
        for (int i = 0; i < 4; i++) {
            Decision refused = call(p, k);
            assertRefused(refused, 2);
            // a bucket may refill meanwhile on a real clock: never fewer than after the two admitted calls
            assertTrue(refused.states().get(0).remaining() >= 4, () -> "the first limit was charged: " + refused);
            assertTrue(refused.states().get(1).remaining() >= 4, () -> "the second limit was charged: " + refused);
        }
        Decision peek = store().peek(p, k).toCompletableFuture().join();
        assertTrue(peek.states().get(0).remaining() >= 4 && peek.states().get(1).remaining() >= 4, () -> "charged: " + peek);
    }

    // sliding counter 5/W with 2 cells (of W/2): t=0 x5; t=W+edge: a log would admit, the counter still
    // counts the first cell in full and refuses until W/2 later; then five again
    @Test
    void slidingCounterCountsTheOldestCellInFull() {
        Policy p = withCells(policy(Strategy.SLIDING_COUNTER, false, lim(5, 1)), 2);
        String k = newKey();
        alignTo(w());
        for (int i = 4; i >= 0; i--) {
            assertAdmitted(call(p, k), i);
        }
        advance(w());
        Decision refused = call(p, k);
        assertRefused(refused, 0);
        if (exactTime()) {
            assertEquals(w() / 2 - edge(), refused.retryAfterMicros());
        }
        advance(w() / 2 + edge());
        for (int i = 4; i >= 0; i--) {
            assertAdmitted(call(p, k), i);
        }
    }

    // sliding counter 3/W, 2 cells, count-rejected: t=0 x3; t=W/2 one refused attempt (charged in cell 1);
    // t=1.5W+edge: cell 0 has left, cell 1 still counts: 2 admitted (3 without count-rejected)
    @Test
    void slidingCounterCountRejected() {
        Policy counting = withCells(policy(Strategy.SLIDING_COUNTER, true, lim(3, 1)), 2);
        Policy plain = withCells(policy(Strategy.SLIDING_COUNTER, false, lim(3, 1)), 2);
        String k = newKey();
        alignTo(w());
        for (int i = 0; i < 3; i++) {
            assertTrue(call(counting, k).allowed());
            assertTrue(call(plain, k).allowed());
        }
        advance(w() / 2);
        assertRefused(call(counting, k), 0);
        assertRefused(call(plain, k), 0);
        advance(w() + edge());
        int countingAdmitted = 0;
        int plainAdmitted = 0;
        for (int i = 0; i < 4; i++) {
            countingAdmitted += call(counting, k).allowed() ? 1 : 0;
            plainAdmitted += call(plain, k).allowed() ? 1 : 0;
        }
        assertEquals(2, countingAdmitted);
        assertEquals(3, plainAdmitted);
    }

    // token bucket 5 per 4W (one permit every T = 0.8W): t=0 x5, refused with retry T; t=T/2 refused;
    // t=T+edge one admitted, then refused
    @Test
    void tokenBucketRefillsOnePermitPerInterval() {
        Policy p = policy(Strategy.TOKEN_BUCKET, false, lim(5, 4));
        long t = 4 * w() / 5;
        String k = newKey();
        for (int i = 4; i >= 0; i--) {
            assertAdmitted(call(p, k), i);
        }
        Decision refused = call(p, k);
        assertRefused(refused, 0);
        assertTrue(refused.retryAfterMicros() <= t);
        if (exactTime()) {
            assertEquals(t, refused.retryAfterMicros());
        }
        advance(t / 2);
        assertRefused(call(p, k), 0);
        advance(t / 2 + edge());
        assertAdmitted(call(p, k), 0);
        assertRefused(call(p, k), 0);
    }

    // token bucket 5/W: a full burst at t=0, then the refill: 9 admitted within (0, W), the documented
    // bound 2N - 1; count-rejected: each refused attempt pushes the next permit one interval later
    @Test
    void tokenBucketBurstThenRateAndCountRejected() {
        Policy p = policy(Strategy.TOKEN_BUCKET, false, lim(5, 1));
        String k = newKey();
        int admitted = 0;
        long start = System.nanoTime();
        for (int i = 0; i < 6; i++) {
            admitted += call(p, k).allowed() ? 1 : 0;
        }
        advance(w() - 2 * edge());
        for (int i = 0; i < 6; i++) {
            admitted += call(p, k).allowed() ? 1 : 0;
        }
        long elapsedMicros = (System.nanoTime() - start) / 1000;
        assertTrue(admitted <= 9, "admitted " + admitted);
        if (exactTime()) {
            assertEquals(9, admitted);
        } else {
            // real time: the burst of 5, plus one permit per W/5 that passed; at least the sleep's worth,
            // at most what the caller's clock saw pass from the first call to the last
            long atLeast = 5 + 5 * (w() - 2 * edge()) / w();
            long atMost = Math.min(9, 5 + 5 * elapsedMicros / w());
            assertTrue(admitted >= atLeast && admitted <= atMost,
                    "admitted " + admitted + ", expected " + atLeast + ".." + atMost + " after " + elapsedMicros + " us");
        }
        Policy counting = policy(Strategy.TOKEN_BUCKET, true, lim(2, 1));
        String c = newKey();
        call(counting, c);
        call(counting, c);
        long first = call(counting, c).retryAfterMicros();
        long second = call(counting, c).retryAfterMicros();
        assertTrue(second > first, first + " then " + second);
        if (exactTime()) {
            assertEquals(w(), first, "one refused attempt charged: two intervals");
            assertEquals(3 * w() / 2, second);
        }
    }

    // reads never consume: peeking five times changes nothing the next decision sees
    @ParameterizedTest
    @EnumSource(Strategy.class)
    void peekingChargesNothing(Strategy s) {
        Policy p = policy(s, false, lim(3, 1));
        String k = newKey();
        alignTo(w());
        call(p, k);
        call(p, k);
        for (int i = 0; i < 5; i++) {
            Decision seen = store().peek(p, k).toCompletableFuture().join();
            assertEquals(1, seen.remaining(), () -> "peek: " + seen);
            assertTrue(seen.states().get(0).resetMicros() > 0);
        }
        assertAdmitted(call(p, k), 0);
        assertEquals(0, store().peek(p, k).toCompletableFuture().join().remaining());
        Decision unknown = store().peek(p, newKey()).toCompletableFuture().join();
        assertEquals(3, unknown.remaining());
        assertEquals(0, unknown.states().get(0).resetMicros());
    }

    // listing: pages of at most the limit, together every key once; count agrees; reset removes a key
    @ParameterizedTest
    @EnumSource(Strategy.class)
    void keysAreListedInPagesAndCounted(Strategy s) {
        Policy p = policy(s, false, lim(3, 1), lim(5, 2));
        // at the start of a 2W window: a fixed window's keys live until the end of their windows, and a key
        // written just before the end of the longest one is rightly gone a moment later
        alignTo(2 * w());
        java.util.Set<String> expected = new java.util.TreeSet<>();
        for (int i = 0; i < 5; i++) {
            String k = newKey();
            expected.add(k);
            call(p, k);
        }
        java.util.List<String> listed = new java.util.ArrayList<>();
        String cursor = "";
        int pages = 0;
        do {
            LimiterStore.KeyPage page = store().keys(p, cursor, 2).toCompletableFuture().join();
            assertTrue(page.keys().size() <= 2, "page " + page);
            listed.addAll(page.keys());
            cursor = page.next();
            assertTrue(++pages <= 10, "too many pages");
        } while (cursor != null);
        long counted = store().count(p).toCompletableFuture().join();
        Policy empty = policy(s, false, lim(3, 1));
        java.util.Map<String, Long> counts = store().counts(java.util.List.of(p, empty)).toCompletableFuture().join();
        store().reset(p, expected.iterator().next()).toCompletableFuture().join();
        long afterReset = store().count(p).toCompletableFuture().join();
        // a fixed window's keys are gone at the end of the 2W window: the steps above must have ended before it
        endedWithin(2 * w() - edge());
        assertEquals(expected, new java.util.TreeSet<>(listed));
        assertEquals(5, listed.size(), "each key once: " + listed);
        assertEquals(5L, counted);
        assertEquals(java.util.Map.of(p.name(), 5L, empty.name(), 0L), counts, "counts in one pass");
        assertEquals(4L, afterReset);
    }

    // overrides never hand an exhausted caller a fresh window (docs/strategies.md "When limits change"):
    // t=0 x4 admitted under 4/4W, then refused. t=edge, an override of a tighter, shorter limit 2/W:
    // refused (it starts from the 4 counted, not from an empty window). The override removed: refused
    // (the 4W window still holds 4). An override of a longer, looser limit 6/8W: exactly 2 more. Back to
    // 4/4W: refused (it holds the 6). Then calls under 2/W again, and back: refused.
    @ParameterizedTest
    @EnumSource(Strategy.class)
    void anOverrideNeverEmptiesAWindow(Strategy s) {
        Policy own = policy(s, false, lim(4, 4));
        Policy tighter = new Policy(own.name(), List.of(Limit.parse(lim(2, 1))), s, "ip", false);
        Policy longer = new Policy(own.name(), List.of(Limit.parse(lim(6, 8))), s, "ip", false);
        String k = newKey();
        alignTo(4 * w());
        for (int i = 0; i < 4; i++) {
            assertTrue(call(own, k).allowed(), s + " call " + i);
        }
        assertFalse(call(own, k).allowed());
        advance(edge());
        assertRefused(call(tighter, k), 0);
        assertRefused(call(own, k), 0);
        assertAdmitted(call(longer, k), 1);
        assertAdmitted(call(longer, k), 0);
        assertRefused(call(longer, k), 0);
        assertRefused(call(own, k), 0);
        // t=W+2edge: the tighter override again, its own window passed: what it admits now is charged to
        // every window too, so the override removed, 4/4W still refuses (a log trimmed to the override's
        // N admitted 2 more here)
        advance(w() + edge());
        int admitted = 0;
        while (call(tighter, k).allowed()) {
            assertTrue(++admitted <= 2, "at most the override's 2");
        }
        assertRefused(call(own, k), 0);
    }

    // a sliding log's permits reserved for one later instant (a call that waited) and the refused attempts charged at
    // that instant (count-rejected) stay one entry each, however many were trimmed to the log's N: 6 of 6/h taken, a
    // call waits for the first to leave, 7 refused attempts are charged at its instant (the log keeps the newest 6);
    // then under 8/h (an override), a refused attempt is one more at that instant: 7 of 8, and the next one 8 of 8.
    // (On Redis, a permit recorded at an instant that had had entries trimmed from it once took the name of one still
    // there and was lost.)
    @Test
    void reservedAndChargedPermitsAtOneInstantAreEachCounted() {
        Policy own = policy(Strategy.SLIDING_LOG, true, "6/1h");
        Policy override = own.withLimits(List.of(Limit.parse("8/1h")));
        String k = newKey();
        assertAdmitted(call(own, k, 6), 0);
        Decision waited = store().acquire(own, k, 1, 3_700_000_000L).toCompletableFuture().join();
        assertTrue(waited.allowed() && waited.waitMicros() > 3_500_000_000L, () -> "waits an hour: " + waited);
        for (int i = 0; i < 7; i++) {
            Decision refused = call(own, k);
            assertFalse(refused.allowed(), () -> "not before the reservation's instant: " + refused);
        }
        Decision seventh = call(override, k);
        assertFalse(seventh.allowed(), () -> "waits for the reservation's instant: " + seventh);
        assertEquals(1, seventh.states().get(0).remaining(), () -> "7 of 8 after the charge: " + seventh);
        Decision eighth = call(override, k);
        assertEquals(0, eighth.states().get(0).remaining(), () -> "8 of 8 after the charge: " + eighth);
    }

    // issue 41: a monthly budget in a zone, moved to a richer plan and to a tighter override mid-month, goes on counting
    // the same month: 800 of 1000 used, a plan of 5000/month has 4200 left; an override of 500/month refuses at once;
    // back under 1000/month, 200 are left. A settlement lands in the month too
    @Test
    void aPlanOrOverrideOfACalendarLimitKeepsTheMonthToDate() {
        java.time.ZoneId berlin = java.time.ZoneId.of("Europe/Berlin");
        dev.slidegate.api.Calendar month = new dev.slidegate.api.Calendar(dev.slidegate.api.Calendar.Unit.MONTH, berlin);
        Policy own = new Policy("budget-" + newKey(), List.of(new Limit(1000, month)), Strategy.FIXED_WINDOW, "ip", false);
        Policy plan = own.withLimits(List.of(Limit.parse("5000/month")));
        Policy override = own.withLimits(List.of(Limit.parse("500/month")));
        assertEquals(berlin, plan.zone(), "a plan's month is the policy's");
        String k = newKey();
        Decision used = call(own, k, 800);
        assertTrue(used.allowed());
        assertEquals(200, used.remaining());
        Decision richer = call(plan, k, 1);
        assertTrue(richer.allowed());
        assertEquals(4199, richer.remaining());
        assertFalse(call(override, k, 1).allowed(), "500/month with 801 used this month");
        store().settle(own, k, used.atMicros(), 800, 300).toCompletableFuture().join();
        Decision back = call(own, k, 1);
        assertTrue(back.allowed());
        assertEquals(1000 - 300 - 1 - 1, back.remaining(), "the refund landed in the month");
    }

    private static Policy withCells(Policy p, int cells) {
        return new Policy(p.name(), p.limits(), p.strategy(), p.key(), p.countRejected(), p.dryRun(), cells);
    }
}
