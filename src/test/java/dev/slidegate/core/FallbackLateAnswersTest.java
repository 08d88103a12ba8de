package dev.slidegate.core;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.slidegate.api.Decision;
import dev.slidegate.api.FailMode;
import dev.slidegate.api.Limit;
import dev.slidegate.api.LimitState;
import dev.slidegate.api.Policy;
import dev.slidegate.api.StoreUnavailableException;
import dev.slidegate.api.Strategy;
import dev.slidegate.memory.MemoryStore;

/**
 * What the fail mode {@code local} admitted while the store was late is charged to the store when it answers again,
 * once only: a call whose answer came after its budget had been charged by the store itself (its late answer says so)
 * is not charged a second time; one whose late answer says it was refused, or that had none, is.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class FallbackLateAnswersTest {

    private final Policy twoAnHour = new Policy("two", List.of(Limit.parse("2/1h")), Strategy.SLIDING_LOG, "ip", false,
            false, 10, FailMode.LOCAL);

    /** The shared store: the next call it is asked runs there (or not) but fails as late, its answer given by the test. */
    private static final class LateStore extends ForwardingStore {
        boolean runsTheNextCall;
        CompletableFuture<Object> nextAnswer;
        Decision ran;
        List<Decision> ranAll;

        @Override
        public CompletionStage<List<Decision>> acquireAll(List<Rates.Asked> asks) {
            CompletableFuture<Object> answer = nextAnswer;
            if (answer == null) {
                return super.acquireAll(asks);
            }
            nextAnswer = null;
            if (runsTheNextCall) {
                ranAll = super.acquireAll(asks).toCompletableFuture().join();
            }
            return CompletableFuture.failedFuture(new Late(answer));
        }

        LateStore() {
            super(new MemoryStore(Clock.system(), 100));
        }

        /** The next call fails as late, having run here when {@code runs}; its late answer is the test's to give. */
        CompletableFuture<Object> failNext(boolean runs) {
            runsTheNextCall = runs;
            nextAnswer = new CompletableFuture<>();
            return nextAnswer;
        }

        @Override
        public CompletionStage<Decision> acquire(Policy policy, String key, int cost, long maxWaitMicros) {
            CompletableFuture<Object> answer = nextAnswer;
            if (answer == null) {
                return super.acquire(policy, key, cost, maxWaitMicros);
            }
            nextAnswer = null;
            if (runsTheNextCall) {
                ran = super.acquire(policy, key, cost, maxWaitMicros).toCompletableFuture().join();
            }
            return CompletableFuture.failedFuture(new Late(answer));
        }
    }

    private static final class Late extends StoreUnavailableException implements AnsweredLate {
        final CompletableFuture<Object> answer;

        Late(CompletableFuture<Object> answer) {
            super("no answer within the budget", null);
            this.answer = answer;
        }

        @Override
        public CompletionStage<Object> lateAnswer() {
            return answer;
        }
    }

    private static FallbackStore fallingBackFrom(LateStore store) {
        return new FallbackStore(store, new MemoryStore(Clock.system(), 100), 1,
                new Breaker("late store", 3, TimeUnit.SECONDS.toNanos(1), System::nanoTime));
    }

    private Decision call(FallbackStore s) throws Exception {
        return s.acquire(twoAnHour, "k", 1).toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    /** The first call fails over; then two more: the store admits the second of two an hour and refuses the third. */
    private void secondAdmittedThirdRefused(FallbackStore s, Decision first) throws Exception {
        assertTrue(first.allowed() && first.fallback(), "the fail mode admitted the first call: " + first);
        admittedThenRefused(s, call(s));
    }

    /** {@code second} was admitted by the store, and the call after it is refused there. */
    private void admittedThenRefused(FallbackStore s, Decision second) throws Exception {
        Decision third = call(s);
        assertTrue(second.allowed() && !second.fallback(), "the store admits the second of two: " + second);
        assertTrue(!third.allowed() && !third.fallback(), "the store refuses the third: " + third);
    }

    @Test
    void aPermitTheStoreChargedInItsLateAnswerIsNotChargedAgain() throws Exception {
        LateStore store = new LateStore();
        FallbackStore s = fallingBackFrom(store);
        CompletableFuture<Object> answer = store.failNext(true);
        Decision first = call(s);
        answer.complete(store.ran);
        secondAdmittedThirdRefused(s, first);
    }

    // the caller's next call comes before the late answer: it waits for that answer (bounded: the store listens for it
    // one budget at most) rather than charge a permit the store may have charged already
    @Test
    void theNextCallOfTheKeyWaitsForTheLateAnswerBeforeChargingWhatIsOwed() throws Exception {
        LateStore store = new LateStore();
        FallbackStore s = fallingBackFrom(store);
        CompletableFuture<Object> answer = store.failNext(true);
        Decision first = call(s);
        assertTrue(first.allowed() && first.fallback(), "the fail mode admitted the first call: " + first);
        CompletableFuture<Decision> second = s.acquire(twoAnHour, "k", 1).toCompletableFuture();
        assertFalse(second.isDone(), "the second call waits for the first one's answer: " + second);
        answer.complete(store.ran);
        admittedThenRefused(s, second.get(5, TimeUnit.SECONDS));
    }

    // a call of two policies decided in one step: the late answer admitted both, so neither permit is charged again
    @Test
    void theLateAnswerOfACallOfTwoPoliciesTakesBackBothPermits() throws Exception {
        LateStore store = new LateStore();
        FallbackStore s = fallingBackFrom(store);
        Policy other = new Policy("other", List.of(Limit.parse("2/1h")), Strategy.SLIDING_LOG, "ip", false, false, 10,
                FailMode.LOCAL);
        List<Rates.Asked> both = List.of(new Rates.Asked(twoAnHour, "k", 1, 0), new Rates.Asked(other, "k", 1, 0));
        CompletableFuture<Object> answer = store.failNext(true);
        List<Decision> first = s.acquireAll(both).toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertTrue(first.size() == 2 && first.stream().allMatch(d -> d.allowed() && d.fallback()),
                "the fail mode admitted both: " + first);
        answer.complete(store.ranAll);
        List<Decision> second = s.acquireAll(both).toCompletableFuture().get(5, TimeUnit.SECONDS);
        List<Decision> third = s.acquireAll(both).toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertTrue(second.size() == 2 && second.stream().allMatch(d -> d.allowed() && !d.fallback()),
                "the store admits the second call of two: " + second);
        assertTrue(third.size() == 1 && !third.get(0).allowed() && !third.get(0).fallback(),
                "and refuses the third: " + third);
    }

    // no answer came (a frozen store, a connection lost): what the fail mode admitted is charged, as before
    @Test
    void aPermitWithNoLateAnswerIsCharged() throws Exception {
        LateStore store = new LateStore();
        FallbackStore s = fallingBackFrom(store);
        CompletableFuture<Object> answer = store.failNext(false);
        Decision first = call(s);
        answer.complete(null);
        secondAdmittedThirdRefused(s, first);
    }

    // the store's late answer refused the call (its window was full then): the permit the fail mode admitted is charged
    @Test
    void aPermitTheStoreRefusedInItsLateAnswerIsCharged() throws Exception {
        LateStore store = new LateStore();
        FallbackStore s = fallingBackFrom(store);
        CompletableFuture<Object> answer = store.failNext(false);
        Decision first = call(s);
        answer.complete(new Decision(twoAnHour, false, 0, 1_000_000, 0, LimitState.untouched(twoAnHour.limits()), false));
        secondAdmittedThirdRefused(s, first);
    }
}
