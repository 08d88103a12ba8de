package dev.slidegate.redis;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.slidegate.api.Decision;
import dev.slidegate.testing.Eventually;

/**
 * Late is not down, on a clock the test sets: the deadlines' timer fires in real time, but every verdict reads the
 * instance's monotonic clock, so silence, lateness and a paused process are the test's to arrange.
 */
class LatenessTest {

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final Lateness lateness = new Lateness(Duration.ofMillis(100), Duration.ofSeconds(2), nanos::get);
    private final LuaScript script = LuaScript.of("test script", "return 1");

    @AfterEach
    void stop() {
        lateness.close();
    }

    private void advance(Duration d) {
        nanos.addAndGet(d.toNanos());
    }

    private static String failure(CompletableFuture<Decision> result) {
        return Eventually.eventually(Duration.ofSeconds(10), () -> {
            try {
                result.getNow(null);
                return null;
            } catch (RuntimeException e) {
                return e.getCause() == null ? e.getMessage() : e.getCause().getMessage();
            }
        }, message -> message != null, "the decision to fail");
    }

    // silent for longer than the budget, on time: the decision fails, saying for how long Redis said nothing
    @Test
    void aSilentRedisFailsTheDecisionAfterTheBudget() throws Exception {
        Lateness.Call call = lateness.start(script);
        Thread.sleep(150); // let the real-time deadline run once on an unmoved clock: nothing is silent yet
        assertFalse(call.result.isDone(), "no time has passed on the instance's clock");
        advance(Duration.ofMillis(120));
        String why = failure(call.result);
        assertTrue(why.contains("Redis answered nothing for 120 ms while test script waited"), why);
    }

    // answers to other calls keep arriving: Redis is up and this one only late; it waits on, up to the late limit
    @Test
    void aLateAnswerIsWaitedForWhileOthersArriveUpToTheLateLimit() throws Exception {
        Lateness.Call call = lateness.start(script);
        for (int i = 0; i < 19; i++) { // 1.9 s, an answer to another call every 100 ms
            advance(Duration.ofMillis(100));
            lateness.heard(Duration.ofMillis(1).toNanos());
            Thread.sleep(5);
        }
        assertFalse(call.result.isDone(), "late, not down: other answers keep coming");
        advance(Duration.ofMillis(150));
        lateness.heard(Duration.ofMillis(1).toNanos());
        String why = failure(call.result);
        assertTrue(why.contains("did not answer test script within 2000 ms (slidegate.redis.late-limit)"), why);
    }

    // the deadline itself ran half a budget late (this process was paused: a GC, a starved CPU): no verdict on a
    // silence this process did not watch; it waits one more budget, and only the next deadline, on time, fails it.
    // Were a late deadline judged like any other, the verdict would come at the first deadline and say 400 ms.
    @Test
    void aDeadlineThatRanLateWaitsOneMoreBudget() throws Exception {
        Lateness.Call call = lateness.start(script);
        advance(Duration.ofMillis(400)); // the clock jumps before the timer fires: the first deadline runs late
        Thread.sleep(150); // the first deadline (real time 100 ms) has run; the next is due 100 ms after it
        advance(Duration.ofMillis(10));
        String why = failure(call.result);
        assertTrue(why.contains("Redis answered nothing for 410 ms"), "judged at the second deadline: " + why);
    }
}
