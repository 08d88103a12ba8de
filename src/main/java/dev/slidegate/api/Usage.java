package dev.slidegate.api;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What the current call used, in its policies' unit (tokens, bytes, rows), known only once it ran: inject it into the
 * code of a call whose policy has {@code settle=true} and report it. When the call ends (its response written, a stream
 * ended, the method returned or threw), Slidegate charges the reported usage instead of the estimate the call was
 * admitted against (its {@code cost}): more is charged in full, less refunded at once. A call that reports nothing keeps
 * its estimate (or, failing, is refunded with {@code refund-failures=true}).
 *
 * <p>
 * One instance per request (request scoped); every settled policy of the call is settled with it. Safe to call from any
 * thread of the request, a streamed response's included.
 */
public class Usage {

    private static final long NONE = -1;

    private final AtomicLong used = new AtomicLong(NONE);
    private final AtomicLong input = new AtomicLong(NONE);
    private final AtomicLong output = new AtomicLong(NONE);

    /**
     * Says how much the call used in all, replacing what was reported before.
     *
     * @param total 0 or more
     * @throws IllegalArgumentException below 0
     */
    public void report(long total) {
        used.set(check(total));
    }

    /**
     * Adds to what the call used (a streamed response's chunks, one by one).
     *
     * @param amount 0 or more
     * @throws IllegalArgumentException below 0
     */
    public void add(long amount) {
        long a = check(amount);
        used.updateAndGet(u -> u == NONE ? a : u + a > MAX ? MAX : u + a);
    }

    /**
     * Says how many tokens the call read and wrote (an LLM call's input and output): in all their sum, replacing what was
     * reported before; a policy with {@code input-limits} or {@code output-limits} is settled with each part. A policy
     * with {@code usage-from=answer} reports this from the answer itself.
     *
     * @param input 0 or more
     * @param output 0 or more
     * @throws IllegalArgumentException below 0, or more than {@link #MAX} in all
     */
    public void reportTokens(long input, long output) {
        long in = check(input);
        long out = check(output);
        long all = check(in + out);
        this.input.set(in);
        this.output.set(out);
        used.set(all);
    }

    /**
     * Adds to the tokens the call read and wrote (a further LLM call of the same request): each part, and their sum to what
     * the call used in all.
     *
     * @param input 0 or more
     * @param output 0 or more
     * @throws IllegalArgumentException below 0
     */
    public void addTokens(long input, long output) {
        long in = check(input);
        long out = check(output);
        this.input.updateAndGet(u -> u == NONE ? in : Math.min(MAX, u + in));
        this.output.updateAndGet(u -> u == NONE ? out : Math.min(MAX, u + out));
        add(Math.min(MAX, in + out));
    }

    /** What was reported so far, or -1 when nothing was. */
    public long reported() {
        return used.get();
    }

    /** The input tokens reported so far ({@link #reportTokens}), or -1 when none were. */
    public long reportedInput() {
        return input.get();
    }

    /** The output tokens reported so far ({@link #reportTokens}), or -1 when none were. */
    public long reportedOutput() {
        return output.get();
    }

    /** The most a call is settled at: 2^40 (a usage beyond it is a bug of the code reporting it). */
    public static final long MAX = 1L << 40;

    private static long check(long amount) {
        if (amount < 0 || amount > MAX) {
            throw new IllegalArgumentException("a usage is 0 to " + MAX + ", not " + amount);
        }
        return amount;
    }
}
