package dev.slidegate.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

/** The breaker on a settable clock: late answers, probes, and transitions under contention. */
class BreakerTest {

    private final AtomicLong nanos = new AtomicLong(1_000);
    private final AtomicInteger opened = new AtomicInteger();
    private final AtomicInteger closed = new AtomicInteger();
    private final Breaker breaker = new Breaker("Redis", 3, 500, nanos::get,
            s -> (s == Breaker.State.OPEN ? opened : closed).incrementAndGet());

    private void open() {
        for (int i = 0; i < 3; i++) {
            breaker.failure(new RuntimeException("no answer"));
        }
    }

    // a call sent at t=1000, the breaker opens at t=1100, the call's late success at t=1200 is no news of
    // recovery: the breaker stays open, but the next call is a probe at once instead of after the
    // cool-down (t=1600); only that probe's success closes it
    @Test
    void aLateSuccessOfACallSentBeforeOpeningDoesNotCloseItButProbesAtOnce() {
        long sentBefore = breaker.now();
        nanos.set(1_100);
        open();
        assertEquals(Breaker.State.OPEN, breaker.state());
        assertFalse(breaker.allowRequest(), "cooling down");
        nanos.set(1_200);
        breaker.success(sentBefore);
        assertEquals(Breaker.State.OPEN, breaker.state(), "a straggler closed the breaker");
        assertTrue(breaker.allowRequest(), "the early probe");
        assertFalse(breaker.allowRequest(), "one probe at a time");
        breaker.success(sentBefore); // another straggler while the probe is out: still no news
        assertEquals(Breaker.State.HALF_OPEN, breaker.state());
        breaker.success(breaker.now());
        assertEquals(Breaker.State.CLOSED, breaker.state());
        assertEquals(1, opened.get());
        assertEquals(1, closed.get());
    }

    // the early probe fails (the store was down after all): open again for a whole cool-down, and a
    // straggler's late success gives one more early probe, not a stream of them
    @Test
    void aFailedEarlyProbeCoolsDownAgain() {
        long sentBefore = breaker.now();
        nanos.set(1_100);
        open();
        breaker.success(sentBefore);
        assertTrue(breaker.allowRequest());
        breaker.failure(new RuntimeException("probe failed"));
        assertEquals(Breaker.State.OPEN, breaker.state());
        assertFalse(breaker.allowRequest(), "cooling down after the failed probe");
        nanos.set(1_599);
        assertFalse(breaker.allowRequest());
        nanos.set(1_600);
        assertTrue(breaker.allowRequest(), "the probe after the cool-down");
    }

    // a probe that never reached the store (the caller's bad key) is given back: the next call probes
    @Test
    void anAbandonedProbeLetsTheNextCallProbe() {
        open();
        nanos.addAndGet(500);
        assertTrue(breaker.allowRequest());
        assertFalse(breaker.allowRequest(), "one probe at a time");
        breaker.abandonProbe();
        assertTrue(breaker.allowRequest(), "the next call is the probe");
        breaker.success(breaker.now());
        assertEquals(Breaker.State.CLOSED, breaker.state());
        breaker.abandonProbe();
        assertEquals(Breaker.State.CLOSED, breaker.state(), "nothing to give back when closed");
    }

    // a failed probe opens it again for a whole cool-down, and a straggler's failure while open changes nothing
    @Test
    void aFailedProbeOpensItAgain() {
        open();
        breaker.failure(new RuntimeException("straggler"));
        nanos.addAndGet(500);
        assertTrue(breaker.allowRequest());
        breaker.failure(new RuntimeException("probe failed"));
        assertEquals(Breaker.State.OPEN, breaker.state());
        nanos.addAndGet(499);
        assertFalse(breaker.allowRequest());
        nanos.addAndGet(1);
        assertTrue(breaker.allowRequest());
        assertEquals(1, opened.get(), "one transition to open, however many failures");
    }

    // 8 threads fail and succeed at once, 2000 times each: every open is followed by one close, never two
    // opens in a row (each transition is told once)
    @Test
    void transitionsAreToldOnceUnderContention() throws InterruptedException {
        CountDownLatch go = new CountDownLatch(1);
        Thread[] threads = new Thread[8];
        for (int t = 0; t < threads.length; t++) {
            int me = t;
            threads[t] = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < 2000; i++) {
                    nanos.addAndGet(1);
                    if (breaker.allowRequest()) {
                        if ((i + me) % 3 == 0) {
                            breaker.success(breaker.now());
                        } else {
                            breaker.failure(new RuntimeException("x"));
                        }
                    }
                }
            });
            threads[t].start();
        }
        go.countDown();
        for (Thread t : threads) {
            t.join();
        }
        int difference = opened.get() - closed.get();
        assertTrue(opened.get() > 0, "the breaker never opened");
        assertTrue(difference == 0 || difference == 1, opened.get() + " opens, " + closed.get() + " closes");
        assertEquals(difference == 1, breaker.state() != Breaker.State.CLOSED);
    }
}
